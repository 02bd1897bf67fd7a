// The process's io threads as each one's gateway reaches the others (docs/io-threads.md): what
// one thread hears that every thread's clients must hear (an upstream's list news), posted to
// each other thread's components, where it runs on that thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace gate::gateway::program {

class gateway_components;

class io_peers {
public:
    struct member {
        boost::asio::io_context* io;
        gateway_components* parts;
    };
    explicit io_peers(std::vector<member> all) : all_(std::move(all)) {}

    // `work(components)` on every thread but `me`'s, each on its own (posted: the caller does
    // not wait).
    template <class Work> void each_other(const gateway_components* me, Work work) const {
        for (const auto& m : all_)
            if (m.parts != me)
                boost::asio::post(*m.io, [work, parts = m.parts] { work(*parts); });
    }
    // `work(components)` on every thread but `me`'s, each on its own in turn, awaited here:
    // their answers. Each answer comes back through a channel on the caller's executor, so the
    // other thread's queue never holds the caller's frame: a thread that stopped (at shutdown)
    // never answers, and the caller waits on its own thread until that one stops too.
    template <class Work>
    boost::asio::awaitable<std::vector<std::invoke_result_t<Work, gateway_components&>>>
    each_other_answer(const gateway_components* me, Work work) const {
        using answer = std::invoke_result_t<Work, gateway_components&>;
        using reply_channel =
            boost::asio::experimental::concurrent_channel<void(boost::system::error_code, answer)>;
        auto home = co_await boost::asio::this_coro::executor;
        std::vector<answer> out;
        for (const auto& m : all_) {
            if (m.parts == me)
                continue;
            auto reply = std::make_shared<reply_channel>(home, 1);
            boost::asio::post(*m.io, [reply, work, parts = m.parts] {
                reply->try_send(boost::system::error_code{}, work(*parts));
            });
            out.push_back(co_await reply->async_receive(boost::asio::use_awaitable));
        }
        co_return out;
    }
    std::size_t size() const { return all_.size(); }

private:
    std::vector<member> all_;
};

} // namespace gate::gateway::program
