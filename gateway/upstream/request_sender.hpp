// What gate sends one upstream: requests (admitted, counted while in flight so a retired
// upstream drains, heard by gate --record's tap, their guard ticket settled), notifications and
// responses on a session, and the cancellation of a call.
//
// Threading: the io thread, like the client that owns it.
#pragma once

#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_recording.hpp"
#include "gateway/upstream/upstream_requests.hpp"
#include "gateway/upstream/upstream_sessions.hpp"
#include "gateway/upstream/upstream_state.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace gate::gateway {

// Told when the last request in flight at a retiring upstream has ended (the client closes).
class drain_hooks {
public:
    virtual void drained() = 0;

protected:
    ~drain_hooks() = default;
};

class request_sender {
public:
    request_sender(gateway::upstream_state& state, gateway::upstream_guards& guards,
                   gateway::upstream_requests& requests, gateway::upstream_recording& recording,
                   drain_hooks& hooks)
        : state_(state), guards_(guards), requests_(requests), recording_(recording),
          hooks_(hooks) {}
    request_sender(const request_sender&) = delete;
    request_sender& operator=(const request_sender&) = delete;

    // Sends one request on the root session, or on ctx.bridge's bridged session (created on
    // first use). The reply carries the gateway's upstream-side id; the caller puts its own
    // client's id back. Admitted here, or by the caller that passes its ticket (stage 6).
    boost::asio::awaitable<gateway::upstream_reply>
    request(std::string_view method, boost::json::object params, const gateway::call_context& ctx);
    boost::asio::awaitable<gateway::upstream_reply>
    request(std::string_view method, boost::json::object params, const gateway::call_context& ctx,
            gateway::upstream_guards::ticket admitted);

    // Sends a notification or a response (the client's answer to an upstream request) on a
    // bridged session (empty: the root session). False when that session is gone or the
    // upstream refused it. `source`: the text the message was read from (a client's), which
    // it is written from (protocol/json_preserve); empty for gate's own.
    boost::asio::awaitable<bool> deliver(const std::string& bridge, boost::json::object message,
                                         std::string source = {}) {
        return requests_.deliver(bridge, std::move(message), std::move(source));
    }
    // Sends a response on the upstream session at `to` (one this instance may not hold).
    boost::asio::awaitable<bool> deliver_to(const gateway::session_address& to,
                                            boost::json::object message, std::string source = {}) {
        return requests_.deliver_to(to, std::move(message), std::move(source));
    }
    // A client cancelled the call gate sent under `upstream_id` on `bridge` (empty: the root
    // session): a 2026-07-28 upstream's exchange for it is closed; an earlier upstream gets a
    // notifications/cancelled (with `reason`, when the client gave one). False: nothing sent
    // or closed (the call is over).
    boost::asio::awaitable<bool> cancel(const std::string& bridge,
                                        const boost::json::value& upstream_id,
                                        const boost::json::value* reason);

    // Requests sent and not yet answered.
    std::size_t calls_in_flight() const { return in_flight_; }
    // gate --record: every request sent here and its answer are heard by the tap. Set once,
    // before the first call; without one nothing is recorded and nothing is copied.
    void record_through(std::shared_ptr<gateway::traffic_tap> tap) {
        recording_.through(std::move(tap));
    }

private:
    struct in_flight; // counts one request, and tells the hooks when a drain is over

    gateway::upstream_state& state_;
    gateway::upstream_guards& guards_;
    gateway::upstream_requests& requests_;
    gateway::upstream_recording& recording_;
    drain_hooks& hooks_;
    std::size_t in_flight_ = 0;
};

} // namespace gate::gateway
