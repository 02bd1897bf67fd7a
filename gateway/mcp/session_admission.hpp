// Downstream sessions within each caller's share of the table (docs/sessions.md, "The session
// table"): session_table admits a new session by gateway/mcp/session_shares; here what it
// decided is carried out. A session ended to make room ends like a DELETEd one: at every
// upstream (its bridged sessions), in the fleet's store and on every instance; a refused
// initialize is answered 429 (the caller's share) or 503 (the whole table) with Retry-After.
#pragma once

#include "gateway/mcp/session_table.hpp"
#include "gateway/operations/method_counts.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "process/log_gate.hpp"

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway {

// What admitting a session asks of the gateway (answered by gateway/entry/mcp_method_services).
class session_admission_services {
public:
    // A session ended to make room: everywhere, the fleet's store and its bridges included.
    virtual void end_everywhere(const std::string& session) = 0;

protected:
    ~session_admission_services() = default;
};

// Stage 8 opens a session through it (pipeline::session_opener).
class session_admission final : public pipeline::session_opener {
public:
    session_admission(session_table& sessions, session_admission_services& services,
                      session_counts& counts)
        : sessions_(sessions), services_(services), counts_(counts) {}

    // A new session for an accepted initialize; nullopt: refused, and `rec` carries the
    // refusal.
    std::optional<std::string> open_session(request_context& rec,
                                            const boost::json::object& capabilities) override;
    // What the table did to admit one (here, or for the fleet: a session opened elsewhere);
    // true when it was admitted.
    bool admitted(const session_table::admission& a);

private:
    session_table& sessions_;
    session_admission_services& services_;
    session_counts& counts_;
    // A flood of them logs a line a second; the metrics count every one.
    process::log_gate evictions_logged_{std::chrono::seconds(1)};
    process::log_gate refusals_logged_{std::chrono::seconds(1)};
};

} // namespace gate::gateway
