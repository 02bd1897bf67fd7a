// Test-only fault hooks: with GATE_TEST_FAULT_HOOKS=1 in gate's environment (never set in
// production; gate warns at start when it is), `POST /_test/kill-upstream-actor/<id>` kills
// that upstream's actor the way a crash would (an unhandleable exit), so a test can watch the
// supervisor respawn it while traffic runs; `POST /_test/kill-breaker-actor` kills the breaker
// actor (every upstream's circuit) the same way; `POST /_test/kill-supervisor` kills the supervisor
// the same way, so a test can watch gate exit non-zero. Without the variable the paths are
// ordinary 404s.
#pragma once

#include "actors/supervision/supervisor.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "transport/http/http_reply.hpp"

#include <boost/beast/http/verb.hpp>
#include <optional>
#include <string_view>

namespace gate::gateway {

inline constexpr std::string_view fault_hook_prefix = "/_test/";

// The hook's answer, or nullopt when `path` names none.
std::optional<transport::http_reply> run_fault_hook(const federation_view& live,
                                                    const actors::supervisor_actor& supervisor,
                                                    boost::beast::http::verb verb,
                                                    std::string_view path);

} // namespace gate::gateway
