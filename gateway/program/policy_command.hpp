// `gate policy ...` subcommands (docs/configuration.md, "Testing a policy").
#pragma once

#include <string>
#include <vector>

namespace gate::gateway::program {

// `args` after "policy"; the exit status.
int run_policy_command(const std::vector<std::string>& args);

} // namespace gate::gateway::program
