// The gate-hooks program: `gate-hooks --config <file>` runs the service; `gate-hooks emit`
// posts one event to a running one (docs/webhooks.md, "Running it").
#pragma once

namespace gate::hooks {

int run_hooks(int argc, char** argv);

} // namespace gate::hooks
