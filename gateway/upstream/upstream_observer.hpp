// What an upstream's client tells the gateway, as one interface: the messages the upstream
// sends on its own, the id a call's request goes out under, and the questions a 2026-07-28
// upstream asks a call's client. Two observers hear them: a call's own
// (call_context::observer; upstream_calls::bridged_call, gateway/mcp/upstream_calls.cpp) hears that
// call's events, and the client's (upstream_client::observe;
// gateway/program/gateway_components.cpp) hears what comes outside any call's observer: a session's
// GET stream, and the messages on the stream of a call that has none. Tests fake it.
#pragma once

#include "gateway/upstream/upstream_message.hpp"
#include "protocol/json_preserve.hpp"

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace gate::gateway {

class upstream_observer {
public:
    upstream_observer() = default;
    upstream_observer(const upstream_observer&) = delete;
    upstream_observer& operator=(const upstream_observer&) = delete;
    virtual ~upstream_observer() = default;

    // A request or a notification the upstream sent on its own, parsed, with the text it came
    // as: what is passed on is written from that text (protocol/json_preserve). `bridge`: the
    // downstream session whose bridged session it came on; empty: a root session.
    virtual void message(const std::string& bridge, upstream_message m) = 0;
    // The upstream-side id the call's request goes out under (again on a retry).
    virtual void sent(std::int64_t upstream_id) { (void)upstream_id; }
    // Whether the call's client is asked for input: a 2026-07-28 upstream's input_required
    // result is then answered by asking it each embedded request (ask_client) and the call
    // continued; otherwise that result is the answer (the client retries).
    virtual bool answers_input() const { return false; }
    // One embedded request ({method, params}, with its text); the client's result with the
    // text it wrote it in, nullopt when it gave none.
    virtual boost::asio::awaitable<std::optional<protocol::sourced_object>>
    ask_client(protocol::sourced_object request) {
        (void)request;
        co_return std::nullopt;
    }
};

} // namespace gate::gateway
