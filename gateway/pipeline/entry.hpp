// The chain's one door in (chain::enter): what came in, and the steps of the entry that are not
// stages of the spec (reading the body as MCP, starting the request's trace, the session a
// message belongs to or a 2026-07-28 request's envelope). Each step is a unit like a stage: it
// continues the request or answers it, and an answer leaves by the chain's exit.
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/session_call.hpp"
#include "gateway/pipeline/step.hpp"
#include "protocol/json_rpc.hpp"
#include "transport/http/http_server.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gate::gateway::pipeline {

// Which door a request came in by: what the entry runs for it (chain::enter).
enum class door : std::uint8_t {
    message, // POST on the MCP endpoint: one MCP message, read, limited (requests), traced and
             // checked against its session (or, stateless, its envelope)
    stream,  // GET on the MCP endpoint: a session's stream (stage 2 only)
    close,   // DELETE on the MCP endpoint: a session's end (stage 2 only)
    view,    // GET /api/federation: stages 2 and 3, then a view, not an MCP request
};

// A request at the door, and what the entry learnt of it for the handler that continues.
struct arrival {
    arrival(door d, const transport::http_request& r) : kind(d), req(r) {}

    door kind;
    const transport::http_request& req;
    std::optional<protocol::message> msg; // read: the message the POST carried
    bool modern = false;                  // read: a 2026-07-28 request (no session)
    std::string session;                  // session: its Mcp-Session-Id
    session_call in_use;                  // session: in use while the message is answered

    bool is_request() const { return msg && msg->kind == protocol::message_kind::request; }
    // A message answered within a session: not a 2026-07-28 request, nor the initialize that
    // opens one.
    bool sessionful() const { return !modern && !(is_request() && msg->method == "initialize"); }
};

// One step of the entry: continues (verdict::proceed) or answers (ctx holds the answer; the
// chain concludes it).
class entry_step {
public:
    virtual ~entry_step() = default;
    virtual step run(request_context& ctx, arrival& a) = 0;
};

// The entry's steps, in the order chain::enter runs them between the stages:
// stage 2, read, stage 3 (requests), trace, then session (sessionful messages) or envelope
// (2026-07-28 requests).
struct entry_steps {
    std::unique_ptr<entry_step> read;     // the POST's body as one MCP message (415, 406, parse)
    std::unique_ptr<entry_step> trace;    // the request's trace starts (after the limit)
    std::unique_ptr<entry_step> session;  // Mcp-Session-Id and MCP-Protocol-Version
    std::unique_ptr<entry_step> envelope; // a 2026-07-28 request's `_meta` and headers
};

} // namespace gate::gateway::pipeline
