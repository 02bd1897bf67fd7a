// The gate program as a function: what main() runs, callable from tests.
#pragma once

#include <string>
#include <vector>

namespace gate::gateway::program {

int run_gate(const std::vector<std::string>& args);

} // namespace gate::gateway::program
