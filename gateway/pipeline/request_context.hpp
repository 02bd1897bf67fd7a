// The request context: what one request carries through the pipeline, and the federation view
// it loaded at entry.
#pragma once

#include "actors/federation/router_messages.hpp"
#include "actors/federation/snapshot.hpp"
#include "actors/sinks/heard_traffic.hpp"
#include "gateway/pipeline/stages.hpp"
#include "gateway/upstream/live_federation.hpp"
#include "gateway/upstream/upstream_client.hpp"
#include "policy/principal.hpp"
#include "protocol/client_profile.hpp"
#include "protocol/gate_tools.hpp"
#include "protocol/outcome.hpp"
#include "protocol/span.hpp"
#include "transport/http/host_guard.hpp"
#include "transport/http/http_reply.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway {

using gate::policy::principal; // policy/principal.hpp: authentication fills it

// The key a principal's sessions are bound to (issuer and subject); empty for anonymous.
inline std::string principal_key(const policy::caller_ref& p) {
    return p ? p->issuer + '\n' + p->subject : std::string();
}

// What a request carries, grouped by the unit that makes it: each group is written by its
// owner (named beside it) and read by those after it.

// Admission (entry/http_face): what arrived with the HTTP request.
struct admission_facts {
    std::chrono::steady_clock::time_point start;
    std::optional<std::string> host, origin;  // the headers stage 1 checks (absent: nullopt)
    std::optional<std::string> authorization; // the header stage 2 checks (absent: nullopt)
    bool query_token = false;                 // the target carried an access_token parameter
    // The client's address: an anonymous caller's share of the session table is keyed by it.
    boost::asio::ip::address peer;
};

// The endpoint's handler (mcp/endpoint, mcp/stateless): the client as its request shows it.
struct client_facts {
    std::string session;   // the downstream session (its bridged sessions carry named calls)
    std::string client_id; // the client's request id, canonical JSON text
    bool modern = false;   // a stateless 2026-07-28 request (no session)
    boost::json::object modern_capabilities; // such a request's clientCapabilities
    // Such a request retrying a call gate sent to a user-account login: that login's id
    // (mcp/account_logins: gate's requestState, taken off before the call goes on).
    std::string login_retry;
    bool login_declined = false; // and its user declined or cancelled that login
    // The log level such a request asked for (`_meta` logLevel; nullopt: no log messages).
    std::optional<std::string> modern_log_level;
    // Such a tools/call's Mcp-Param-* headers (name after the prefix, value as sent).
    std::vector<std::pair<std::string, std::string>> param_headers;
    // Its capability profile, for lists: a memo filled on first use
    // (upstream_calls::profile_of); gate's own lists set the full one.
    std::optional<protocol::client_profile> profile;
};

// Stage 2 (pipeline/s2_authenticate; the token endpoint for /oauth/token): who the caller is.
struct caller_facts {
    policy::caller_ref caller; // its principal; null: anonymous
    std::optional<std::string> tenant;
    std::optional<std::size_t> tenant_index; // its place in view->snap->tenants
    // Its token as per-caller upstreams take it: a memo filled on first use (caller_of).
    std::shared_ptr<const caller_credential> caller_token;
};

// The read step (pipeline/read_step) and the endpoint's handler that takes the params: the
// message as the stages see it.
struct message_in {
    boost::json::value id;      // the client's JSON-RPC id
    boost::json::object params; // taken by the stage that sends them upstream
    // The text the client wrote its params in (and the rest of its body after them): what
    // goes upstream is written from it, so its arguments arrive as written, numbers included
    // (protocol/json_preserve). A view into the POST's body, which outlives the call, so the
    // common call copies nothing; a call that outlives its POST keeps a copy first (and is
    // not copied or moved after: the view would point into the old copy).
    std::string_view params_source;
    std::string params_kept;
    void keep_params_source() {
        params_kept = std::string(params_source);
        params_source = params_kept;
    }
    // gate --record: the message as it arrived, completed and handed to the recording at the
    // exit. Null when not recording.
    std::shared_ptr<actors::heard_request> heard;
};

// The trace step (operations/request_tracing): the request's trace context.
struct request_trace {
    std::string traceparent; // sent with every upstream call this request causes
    // With tracing, a sampled request's spans: its server span's ids and start, and the
    // client spans of the upstream calls it made.
    struct trace_record {
        std::string trace_id, span_id, parent_span_id;
        std::chrono::system_clock::time_point start;
        std::vector<protocol::span> calls;
    };
    std::optional<trace_record> spans;
};

// The chain (pipeline/chain): the stages the request passed, and whether its exit ran.
struct chain_passage {
    stage_trace trace;
    bool audited = false; // the exit ran (chain.hpp): never twice
    // Where a run paused at a waiting stage (chain::run_pausing), for chain::resume; none
    // between a resume and the next pause.
    std::optional<std::size_t> paused_at;
    stage paused_to = stage::egress;
};

// The handler that streams a call (mcp/call_streams): where the call's own traffic goes.
struct call_sinks {
    // The upstream's own messages while this request runs, to the call's stream.
    // `bridge`: the upstream session it came on (empty: the root session).
    std::function<void(std::size_t upstream, const std::string& bridge, upstream_message)>
        server_message;
    // A message for the client's call stream, as it is (its id already the client's to see).
    std::function<void(std::string)> push_to_client;
    // Such a call's cancellation: its client closing its stream cancels it upstream.
    std::shared_ptr<call_cancel> cancel;
};

// Stage 4 (pipeline/s4_route, through its route services in mcp/call_routes): where the
// request goes.
struct route_result {
    std::optional<actors::route> target;   // a named call's upstream
    std::optional<actors::list_plan> plan; // a list's upstreams to fetch
    // A tools/call of gate's own tools (tool search): answered at stage 8 from the tools
    // list, planned and fetched like a tools/list's.
    std::optional<protocol::gate_tool> gate_tool;
    // A tools/call's tool as gate last listed it, for policy (MCP's defaults for a tool no
    // list showed).
    std::optional<protocol::tool_hints> tool_hints;
};

// Stage 5 (pipeline/s5_authorize): what the policy decided and left for later stages.
struct policy_result {
    // The policy's, where one applied (the token endpoint and the refusals gate makes on a
    // client's behalf say theirs here too: the audit event's `decision`).
    std::optional<std::string> decision, rule_id;
    // The decision hook's say (stages 5 and 8, through pipeline/hook_check), for the audit.
    std::optional<boost::json::object> hook;
    std::vector<std::string> required_scopes; // a step-up's
    // An invocation the hook judges again at its result (policy.decisionHook stages
    // "result"): stage 5 keeps what stage 8 describes, since the params go upstream at stage 7.
    struct hook_pending {
        std::string upstream_name;
        std::optional<boost::json::object> arguments; // when the hook is sent them
        // The client asked for a task (or, in 2026-07-28, declared the extension): only then
        // is an answer that names one a task, not a result to judge.
        bool task_asked = false;
    };
    std::optional<hook_pending> hook_at_result;
};

// Stage 6 (pipeline/s6_upstream_guards): the admissions stage 7 spends.
struct guard_grant {
    std::shared_ptr<upstream_client::guard_ticket> admitted;                   // a named call's
    std::vector<std::shared_ptr<upstream_client::guard_ticket>> list_admitted; // per plan entry
    // A resources/(un)subscribe at a 2026-07-28 upstream, which has no such method: gate
    // holds the URI in its own listen there, admitted by that hold (stage 7 asks it).
    bool through_listen = false;
};

// Stage 7 (pipeline/s7_proxy): what the upstreams answered, for egress.
struct proxy_result {
    std::vector<actors::fetched_list> fetched;       // a list's pages
    std::optional<upstream_message> upstream_answer; // a named call's answer
    std::string negotiated_version; // initialize: the revision agreed with the client
};

// Egress (pipeline/s8_egress, with pipeline/answers and pipeline/client_answer, through which
// the refusals made earlier go): the answer the client gets.
struct request_answer {
    // The JSON-RPC answer once a stage has made it (the client's id in it); for an upstream's
    // answer passed on, what its outcome is read from, while `verbatim` is what is sent: the
    // upstream's text with the client's id spliced in.
    std::optional<boost::json::object> response;
    std::string verbatim;
    // The HTTP status of a 2026-07-28 request's answer (protocol::modern_answer_status).
    unsigned status = 200;
    std::vector<std::pair<std::string, std::string>> headers; // e.g. Mcp-Session-Id
    // A refusal before MCP handling (an HTTP status of its own, such as 429): the reply, and
    // the reason gate_http_rejections_total counts it under. Audited with method `http`.
    std::optional<std::string> rejection;
    std::optional<transport::http_reply> refusal_reply;
};

// What the audit event says of a request beyond its subject and its answer: written by the
// refusals (pipeline/answers, client_answer: `outcome`, `error`), by each unit that bills an
// upstream call (`upstream_calls`), by the lists (`items_served`) and by egress (`usage`).
struct audit_facts {
    protocol::outcome outcome = protocol::outcome::ok;
    std::optional<std::string> error;
    std::int64_t upstream_calls = 0;
    std::optional<std::int64_t> items_served;
    // An upstream result's `_meta.usage`, verbatim (spec: gate reports usage and never
    // computes it): JSON text on one line, numbers as the upstream wrote them.
    std::optional<std::string> usage;
};

// What one request carried and what became of it, created at admission and carried through
// the nine stages (stage.hpp); the audit stage's input. `principal` and `tenant` stay empty
// until authentication and tenants are enforced.
struct request_context {
    // Admission: the snapshot it loaded (with its clients), and what arrived with it.
    std::shared_ptr<const federation_view> view;
    admission_facts admission;
    // The JSON-RPC method, as the stages and the audit event name the request (`http` for a
    // refusal before MCP handling, `oauth/token` at the token endpoint).
    std::string method;
    message_in message;
    request_trace tracing;
    caller_facts who;
    client_facts client;
    call_sinks sinks;
    chain_passage passage;

    // What a stage hands to the next (route -> policy -> guards -> proxy -> egress).
    route_result routed;
    policy_result policy;
    using hook_pending = policy_result::hook_pending;
    guard_grant guards;
    proxy_result proxied;

    request_answer answer;

    // The request's subject as the audit event names it (stage 4, or the handler that names
    // one), and what became of it.
    std::optional<std::string> name, upstream;
    audit_facts audit;
    using trace_record = request_trace::trace_record;
};

// Whether the caller's tenant sees upstream `upstream` (tenants[].upstreams): route and the
// task methods alike answer for one it does not see as for one not configured.
inline bool tenant_sees(const request_context& rec, std::size_t upstream) {
    return !rec.who.tenant_index ||
           rec.view->snap->tenants->sees(*rec.who.tenant_index,
                                         rec.view->snap->upstream(upstream).id);
}

// Whether the caller may call tool `own` (the upstream's name; `client_name` as listed) of
// `upstream`: its tenant sees the upstream and the policy, if any, lets it call the tool with
// some arguments (as lists show it). What gate would tell of a tool before the stages decide
// (its header annotations, why it is withheld) is told only then: a caller refused it hears
// the refusal, nothing of the tool.
inline bool may_call_tool(const request_context& rec, std::size_t upstream, std::string_view own,
                          std::string_view client_name) {
    if (!tenant_sees(rec, upstream))
        return false;
    const auto& policy = rec.view->snap->policy;
    if (!policy)
        return true;
    static constexpr std::string_view calls[] = {"tools/call"};
    policy::invocation what{rec.view->snap->upstream(upstream).id, calls, own, client_name};
    what.listing = true;
    if (upstream < rec.view->size())
        what.hints = rec.view->facts(upstream)
                         ->tools.hints(std::string(own))
                         .value_or(protocol::tool_hints{});
    return policy->decide(rec.who.caller ? &*rec.who.caller : nullptr, what).allowed;
}

// A call an upstream serves for this request: its trace context, and its place in a recording.
inline call_context traced_call(const request_context& rec) {
    auto ctx = call_context::traced(rec.tracing.traceparent);
    if (rec.message.heard)
        ctx.recorded = rec.message.heard->seq;
    return ctx;
}

} // namespace gate::gateway
