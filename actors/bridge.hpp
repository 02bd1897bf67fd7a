// The bridge between the io thread and the actors: a coroutine sends one message to a
// long-lived actor and resumes on its own executor when the actor replies. No actor is
// spawned per request and no thread blocks (DESIGN.md §3).
#pragma once

#include "actors/reply.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <caf/actor.hpp>
#include <caf/send.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace gate::actors {

// How long the io thread waits for an actor's answer. Actors answer in microseconds; one that
// has not answered in this long is wedged, and the request is answered as if it were gone
// (an internal error) rather than held.
inline constexpr std::chrono::milliseconds ask_timeout{5000};

// make_message(reply_to<T>) builds the message; the result is nullopt when the actor dropped
// it without answering or did not answer within `timeout` (a late answer is ignored). The
// handle is held by value: callers pass one read from an actor set they do not keep, and the
// coroutine first runs when awaited.
template <class T, class Handle, class MakeMessage>
boost::asio::awaitable<std::optional<T>> ask(Handle target, MakeMessage make_message,
                                             std::chrono::milliseconds timeout = ask_timeout) {
    namespace asio = boost::asio;
    auto ex = co_await asio::this_coro::executor;
    co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(std::optional<T>)>(
        [&](auto handler) {
            // The answer and the timeout race on the io thread; the first one resumes the
            // coroutine, the other finds it done.
            struct race {
                race(decltype(handler) h, asio::any_io_executor e)
                    : resume(std::move(h)), timer(std::move(e)) {}
                decltype(handler) resume;
                bool done = false;
                asio::steady_timer timer;
                void finish(std::optional<T> value) {
                    if (std::exchange(done, true))
                        return;
                    timer.cancel();
                    auto h = std::move(resume);
                    h(std::move(value));
                }
            };
            auto st = std::make_shared<race>(std::move(handler), ex);
            st->timer.expires_after(timeout);
            st->timer.async_wait([st](const boost::system::error_code& ec) {
                if (!ec)
                    st->finish(std::nullopt);
            });
            // The timer's wait alone owns the race (and through `resume` the frame): the reply
            // holds it weakly and looks on the io thread. So an actor's thread is never the last
            // owner (the timer would be destroyed there), and a context abandoning its pending
            // work at shutdown destroys a waiting frame then, while what it points into lives,
            // not when an actor answers later into the stopped context (io_thread_context.hpp).
            reply_to<T> reply([w = std::weak_ptr<race>(st), ex](std::optional<T> value) mutable {
                asio::post(ex, [w = std::move(w), v = std::move(value)]() mutable {
                    if (auto alive = w.lock())
                        alive->finish(std::move(v));
                });
            });
            caf::anon_send(target, make_message(std::move(reply)));
        },
        asio::use_awaitable);
}

} // namespace gate::actors
