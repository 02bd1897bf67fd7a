// What gate sends one upstream (request_sender.hpp).
#include "gateway/upstream/request_sender.hpp"

#include "protocol/json_rpc.hpp"

#include <boost/asio/post.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

// Counted while in flight, so a retired upstream drains before it closes.
struct request_sender::in_flight {
    request_sender& s;
    explicit in_flight(request_sender& sender) : s(sender) { ++s.in_flight_; }
    in_flight(const in_flight&) = delete;
    in_flight& operator=(const in_flight&) = delete;
    ~in_flight() {
        if (--s.in_flight_ != 0 || !s.state_.retiring || s.state_.closed)
            return;
        if (auto keep = s.state_.hold())
            asio::post(s.state_.ex, [keep = std::move(keep), &sender = s] {
                if (sender.in_flight_ == 0 && !sender.state_.closed)
                    sender.hooks_.drained();
            });
    }
};

asio::awaitable<gateway::upstream_reply> request_sender::request(std::string_view method,
                                                                 json::object params,
                                                                 const gateway::call_context& ctx) {
    auto admitted = co_await guards_.admit(ctx.use);
    if (auto* refused = std::get_if<gateway::upstream_failure>(&admitted))
        co_return std::move(*refused);
    co_return co_await request(method, std::move(params), ctx,
                               std::move(std::get<gateway::upstream_guards::ticket>(admitted)));
}

asio::awaitable<gateway::upstream_reply>
request_sender::request(std::string_view method, json::object params,
                        const gateway::call_context& ctx,
                        gateway::upstream_guards::ticket admitted) {
    in_flight counted(*this);
    auto heard = recording_.before(params); // a copy only while recording
    auto reply = co_await requests_.send(method, std::move(params), ctx);
    if (heard)
        recording_.heard(ctx, std::move(*heard), method, reply);
    if (const auto* f = std::get_if<gateway::upstream_failure>(&reply); !admitted.settle_now(f))
        co_await admitted.settle(f);
    co_return reply;
}

asio::awaitable<bool> request_sender::cancel(const std::string& bridge,
                                             const json::value& upstream_id,
                                             const json::value* reason) {
    if (state_.modern) // the closing of the call's exchange is the cancellation
        co_return requests_.cancel(upstream_id, reason && reason->is_string()
                                                    ? std::string(reason->get_string())
                                                    : std::string("cancelled by the client"));
    co_return co_await deliver(bridge, protocol::make_cancelled(upstream_id, reason));
}

} // namespace gate::gateway
