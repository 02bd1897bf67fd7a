// An awaitable run on another io thread's executor, its answer awaited on the caller's
// (docs/io-threads.md): what one thread keeps for the whole process (users' accounts) asked
// from another. The answer comes back through a channel on the caller's executor, so the other
// thread's queue never holds the caller's frame: a thread that stopped (at shutdown) never
// answers, and the caller waits on its own thread until that one stops too.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/error_code.hpp>
#include <exception>
#include <memory>
#include <utility>

namespace gate::transport {

// `ask()` (returning an awaitable<Answer>) run on `there`; its answer, or `failed` when it
// threw. `ask` owns what it reads: it runs on the other thread, after the caller's frame may
// be gone.
template <class Answer, class Ask>
boost::asio::awaitable<Answer> answered_on(boost::asio::any_io_executor there, Ask ask,
                                           Answer failed) {
    namespace asio = boost::asio;
    using reply_channel =
        asio::experimental::concurrent_channel<void(boost::system::error_code, Answer)>;
    auto reply = std::make_shared<reply_channel>(co_await asio::this_coro::executor, 1);
    asio::co_spawn(
        std::move(there),
        [reply, ask = std::move(ask),
         failed = std::move(failed)]() mutable -> asio::awaitable<void> {
            try {
                reply->try_send(boost::system::error_code{}, co_await ask());
            } catch (const std::exception&) {
                reply->try_send(boost::system::error_code{}, std::move(failed));
            }
        },
        asio::detached);
    co_return co_await reply->async_receive(asio::use_awaitable);
}

} // namespace gate::transport
