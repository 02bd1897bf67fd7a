// `gate check` (docs/operations.md, "gate check"): the configuration validated, then everything
// outside gate it names tried once, one row each.
#pragma once

#include <string>
#include <vector>

namespace gate::gateway::program {

// `args` after "check"; the exit status (0 all up, 1 something down, 2 the command or the
// configuration is wrong).
int run_check_command(const std::vector<std::string>& args);

} // namespace gate::gateway::program
