#include "gateway/mcp/downstream_sessions.hpp"

#include "actors/bridging/bridge_messages.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;

namespace {

constexpr auto downstream_session_idle = std::chrono::hours(1);
constexpr auto session_sweep_interval = std::chrono::minutes(1);

} // namespace

void downstream_sessions::broadcast(const boost::json::object& news) {
    table_.broadcast(boost::json::serialize(news));
    listens_.deliver_to_all(news);
}

void downstream_sessions::session_ended(std::string session) {
    // Every upstream session of the client ends now, those the keeper has not heard of yet
    // (a handshake that failed before its first call went out) included.
    // A client not made on this thread has none.
    live_.current_view()->for_each_made(
        [&](upstream_client& c) { c.sessions().end_bridge(session); });
    if (levels_)
        levels_->forget(session);
    holds_.release_all(session);
    if (server_requests_)
        server_requests_->forget_session(session);
    keeper_.tell(actors::bridge_session_ended{std::move(session)});
}

asio::awaitable<void> downstream_sessions::sweep() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (!stopping_) {
        timer.expires_after(session_sweep_interval);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        auto gone = table_.expire_idle(std::chrono::steady_clock::now(), downstream_session_idle);
        if (auto n = gone.size())
            spdlog::info("expired {} idle downstream session{}", n, n == 1 ? "" : "s");
        for (auto& id : gone)
            session_ended(std::move(id));
    }
}

void downstream_sessions::end_everywhere(const std::string& session) {
    fleet_.end_session(session);
    session_ended(session);
}

} // namespace gate::gateway
