// What a call to an upstream carries and what comes back: the call's context (its trace, the
// text its params came as, what it counts against, its budget, the session it goes on, the
// caller, its observer) and the upstream's reply or why there is none. Shared by the units of
// the upstream client (upstream_client.hpp) and the gateway that calls them.
#pragma once

#include "actors/guards/upstream_guard.hpp"
#include "gateway/upstream/call_cancel.hpp"
#include "gateway/upstream/upstream_credential.hpp"
#include "gateway/upstream/upstream_message.hpp"
#include "gateway/upstream/upstream_observer.hpp"
#include "protocol/client_profile.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gate::gateway {

struct upstream_failure {
    // circuit_open and rate_limited: the upstream guards refused the call; it never left gate.
    enum class kind { connect_error, timeout, http_status, protocol, circuit_open, rate_limited };
    kind what;
    std::string message;
    int status = 0;
    std::optional<upstream_message> answer;   // the upstream's own JSON-RPC error, when it sent one
    std::chrono::milliseconds retry_after{0}; // circuit_open, rate_limited
    // False when the failure says nothing about the upstream's health (the client did not
    // answer an input request, a capability the upstream does not offer).
    bool upstream_at_fault = true;
    // A per-caller upstream's challenge (WWW-Authenticate) with its 401 or 403, when it sent
    // one: what `gate check` reports of a try without a caller's credential.
    std::string challenge{};
    // The answer was over what gate reads of one (answer_limit): the upstream's doing.
    bool over_bound = false;
    // gate's own capacity refused the answer (the answers being read from the upstream
    // together, max_upstream_answer_bytes): it tells nothing of the upstream's health, so its
    // breaker counts it neither a success nor a failure.
    bool capacity = false;
    // A connect_error before anything of the request left gate (the endpoint's address could
    // not be resolved, or its connection was refused, timed out or failed TLS): the request
    // may go to another replica.
    bool unsent = false;
    // A user-account upstream has no token of the caller's (none yet, or it was refused): the
    // call answers with a login (gateway/mcp/account_logins).
    bool needs_login = false;
    // Nothing left gate: the caller holds no token there yet. Not an upstream request in
    // gate_upstream_requests_total; the login is counted in gate_user_account_events_total.
    bool login_first() const { return needs_login && what == kind::connect_error; }
};

// The upstream's JSON-RPC response (result or error), or why there is none.
using upstream_reply = std::variant<upstream_message, upstream_failure>;

struct call_context {
    std::string traceparent; // W3C trace context propagated to the upstream
    // The text a client's params were parsed from: the request's params are written from it,
    // so what the client wrote reaches the upstream as written, numbers included
    // (protocol/json_preserve). Empty: gate's own request.
    std::string_view params_source;
    // A client's invocation counts against upstreams[].rateLimit; gate's own upkeep (health
    // pings, resubscribing after a restart) is subject to the breaker only.
    actors::guard_use use = actors::guard_use::invocation;
    std::optional<std::chrono::milliseconds> timeout; // tighter than timeouts.requestMs
    // The downstream session whose bridged session carries the call; empty: the root session.
    std::string bridge;
    // The client's declared capabilities, mirrored when its bridged session is created.
    const boost::json::object* client_capabilities = nullptr;
    // The bridged session it creates is a 2025-11-25 session client's: at a 2026-07-28
    // upstream its requests ask for log messages at protocol::session_default_log_level
    // until the client sets a level.
    bool session_client = false;
    // The verified caller, for an upstream whose credential is the caller's own (passthrough,
    // token-exchange): its calls go on a bridged session of that caller only.
    std::shared_ptr<const caller_credential> caller;
    // On the root session, whose client profile it is for: an upstream lists to each profile
    // what it would list such a client directly (protocol/client_profile.hpp).
    protocol::client_profile profile = protocol::full_profile;
    // The call's own observer: the upstream's messages on this call's stream (sampling,
    // elicitation, roots, progress, logs), the id the request goes out under, the client's
    // answers to a 2026-07-28 upstream's input requests. Without one the messages go to the
    // client's observer and nobody hears the rest (upstream_observer.hpp). Not owned: it
    // outlives the call.
    upstream_observer* observer = nullptr;
    // The recorded request (gate --record) this call serves; 0: gate's own upkeep.
    std::uint64_t recorded = 0;
    // A 2026-07-28 client's own Mcp-Param-* headers (name after the prefix, value), checked
    // against its arguments: those gate does not write itself from the tool's annotations are
    // forwarded as sent. A copy: the call may outlive the request's context (a parked call).
    std::vector<std::pair<std::string, std::string>> client_param_headers;
    // The client's cancellation of the call (a 2026-07-28 client's closed stream), or null.
    std::shared_ptr<call_cancel> cancel;
    // The most bytes of the answer read (as JSON, or as one event of its stream): past it the
    // call fails (over_bound). 0: the bound of any answer (max_answer_bytes); a list's pages
    // get what remains of the list's bound.
    std::size_t answer_limit = 0;

    static call_context traced(std::string traceparent) {
        call_context ctx;
        ctx.traceparent = std::move(traceparent);
        return ctx;
    }
};

} // namespace gate::gateway
