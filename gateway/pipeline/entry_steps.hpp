// The entry's steps (entry.hpp), one unit each in this folder (read_step.cpp, trace_step.cpp,
// session_step.cpp, envelope_step.cpp), and the little each asks of the gateway: its own narrow
// interface, never gateway::impl, implemented by the component that owns what it reads (the
// tap by operations/request_sinks, the sessions by fleet/fleet_sessions).
#pragma once

#include "gateway/pipeline/entry.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/address.hpp>
#include <memory>
#include <optional>
#include <string>

namespace gate::gateway::pipeline {

// gate --record: the message as it arrived, heard once it is known to be JSON.
class message_tap {
public:
    virtual void hear(const transport::http_request& req, request_context& ctx) = 0;

protected:
    ~message_tap() = default;
};

// The downstream sessions a message may name.
class session_directory {
public:
    // `id` a session of `caller` here: marked used now and held in use while the message is
    // answered (held); another principal's, or none and no fleet store to ask (refused); or
    // only the fleet's store can tell (ask_store: known, which may adopt it here, then use).
    enum class session_found { held, refused, ask_store };
    struct session_use {
        session_found found = session_found::refused;
        session_call call;
    };
    virtual session_use use_now(const std::string& id, const policy::caller_ref& caller) = 0;
    virtual boost::asio::awaitable<bool> known(const std::string& id,
                                               const policy::caller_ref& caller,
                                               const boost::asio::ip::address& peer) = 0;
    // Marks it used now and holds it in use while the message is answered; nullopt when it
    // is gone (ended between the lookup and now).
    virtual std::optional<session_call> use(const std::string& id) = 0;

protected:
    ~session_directory() = default;
};

// Content-Type (415), Accept (406), the body as JSON (-32700) and as one JSON-RPC message
// (-32600); the message, its method and id, on the arrival and the context. `tap` (null:
// not recording) hears every message that is JSON; it outlives the step.
std::unique_ptr<entry_step> make_read(message_tap* tap);
// The request's trace: the caller's traceparent continued, sampled with the snapshot's
// tracing section.
std::unique_ptr<entry_step> make_trace();
// Mcp-Session-Id (400 missing, 404 unknown or another principal's) and MCP-Protocol-Version
// (400 unsupported); the session, held in use, on the arrival.
std::unique_ptr<entry_step> make_session(session_directory& sessions);
// A 2026-07-28 request's envelope (`_meta` and the headers that mirror it: 400) and a method
// that revision has (404).
std::unique_ptr<entry_step> make_envelope();

// A request of a 2026-07-28 client (its version in the header or in `_meta`), served without
// a session (gateway/mcp/stateless.cpp).
bool is_modern_request(const transport::http_request& req, const protocol::message& msg);

} // namespace gate::gateway::pipeline
