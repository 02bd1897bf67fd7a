#include "gateway/mcp/client_requests.hpp"

#include "protocol/json_preserve.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

namespace gate::gateway {

namespace asio = boost::asio;

namespace {

// Bounded: a client that never answers does not pin the call.
constexpr auto client_input_timeout = std::chrono::seconds(60);

} // namespace

parked_fleet client_requests::parked_calls() {
    return fleet_.parked_calls();
}

std::string client_requests::mint_request_id() {
    return "gate-" + fleet_.tag() + std::to_string(++minted_);
}

void client_requests::record_server_request(const std::string& session, const std::string& minted,
                                            const std::string& upstream,
                                            boost::json::value upstream_id) {
    fleet_.share_server_request(session, minted, upstream, upstream_id);
    server_requests_.opened(session, minted, {upstream, std::move(upstream_id)});
}

asio::awaitable<std::optional<protocol::sourced_object>>
client_requests::ask_client_input(request_context& rec, protocol::sourced_object asked) {
    if (!rec.sinks.push_to_client)
        co_return std::nullopt;
    auto minted = "gate-" + std::to_string(++minted_);
    auto slot = inputs_.expect(minted, rec.client.session, co_await asio::this_coro::executor);
    auto& request = asked.value;
    request["jsonrpc"] = "2.0";
    request["id"] = minted;
    rec.sinks.push_to_client(protocol::serialize_preserving(request, asked.source));
    slot->wake.expires_after(client_input_timeout);
    boost::system::error_code ec;
    co_await slot->wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    inputs_.forget(minted);
    if (!slot->answered)
        co_return std::nullopt;
    co_return std::move(slot->result);
}

} // namespace gate::gateway
