// The bridge between the io thread and the actors: a coroutine sends one message to a
// long-lived actor and resumes on its own executor when the actor replies. No actor is
// spawned per request and no thread blocks (DESIGN.md §3).
#pragma once

#include "actors/reply.hpp"

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <caf/actor.hpp>
#include <caf/send.hpp>
#include <memory>
#include <optional>

namespace gate::transport {

// make_message(reply_to<T>) builds the message; the result is nullopt only if the actor
// dropped it without answering.
template <class T, class Handle, class MakeMessage>
boost::asio::awaitable<std::optional<T>> ask(const Handle& target, MakeMessage make_message) {
    auto ex = co_await boost::asio::this_coro::executor;
    co_return co_await boost::asio::async_initiate<decltype(boost::asio::use_awaitable),
                                                   void(std::optional<T>)>(
        [&](auto handler) {
            auto h = std::make_shared<decltype(handler)>(std::move(handler));
            reply_to<T> reply([h, ex](std::optional<T> value) {
                boost::asio::post(ex, [h, v = std::move(value)]() mutable { (*h)(std::move(v)); });
            });
            caf::anon_send(target, make_message(std::move(reply)));
        },
        boost::asio::use_awaitable);
}

} // namespace gate::transport
