// `gate definitions ...` subcommands (docs/configuration.md, "Pinned definitions").
#pragma once

#include <string>
#include <vector>

namespace gate::gateway::program {

// `args` after "definitions"; the exit status.
int run_definitions_command(const std::vector<std::string>& args);

} // namespace gate::gateway::program
