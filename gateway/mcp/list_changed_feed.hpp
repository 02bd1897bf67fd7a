// An upstream's list_changed for every connected client, coalesced per kind over a short
// interval. Every bridged session of an upstream (and its root session) may announce the same
// change: one client's call can make the upstream tell each of its N sessions, and passing
// each on to every client would send N x N messages. Announcements of one kind within an
// interval go out once; a list is idempotent news ("list again").
#pragma once

#include "gateway/mcp/interval_gate.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace gate::gateway {

class list_changed_feed {
public:
    // Who hears the news: every client's session and listen.
    class audience {
    public:
        virtual void broadcast(const boost::json::object& news) = 0;

    protected:
        ~audience() = default;
    };

    static constexpr std::chrono::milliseconds default_interval{20};

    list_changed_feed(boost::asio::any_io_executor ex, audience& to,
                      std::chrono::steady_clock::duration interval = default_interval);
    list_changed_feed(const list_changed_feed&) = delete;
    list_changed_feed& operator=(const list_changed_feed&) = delete;

    // `method`: notifications/{tools,prompts,resources}/list_changed, for this io thread's
    // clients.
    void announce(std::string method);
    // An upstream's news heard on this thread: announced here and to the other io threads'
    // clients (docs/io-threads.md), whose own clients of that upstream may not follow it.
    void announce_heard(std::string method) {
        if (others_)
            others_(method);
        announce(std::move(method));
    }
    // How the other io threads hear it (each then announce()s on its own thread).
    void also_tell(std::function<void(const std::string&)> others) { others_ = std::move(others); }

private:
    std::function<void(const std::string&)> others_;
    audience& to_;
    std::set<std::string> pending_;
    interval_gate gate_;
};

} // namespace gate::gateway
