// The io thread's line to the bridge keeper (docs/sessions.md): what happened to bridged
// sessions, gathered in a keeper_batch and sent as one message per interval. A question to
// the keeper flushes first, so it answers knowing everything that happened before it.
//
// At most one batch per interval: a message per event (or per loop turn) wakes a CAF worker
// tens of thousands of times a second, and on the gateway's core each wake-up is a context
// switch taken from the io thread. The keeper decides nothing that needs a fresher picture:
// questions flush first, the idle sweep counts in minutes and the io thread checks a bridge's
// use itself before ending it.
#pragma once

#include "actors/bridging/bridge_messages.hpp"
#include "gateway/mcp/interval_gate.hpp"
#include "gateway/mcp/keeper_batch.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <optional>
#include <vector>

namespace gate::actors {
class actor_directory;
}

namespace gate::gateway {

class keeper_feed {
public:
    // The keeper as it stands now (a respawn replaces it); none without bridging.
    class keeper {
    public:
        virtual bool present() const = 0;
        virtual void send(std::vector<actors::bridge_event> batch) = 0;

    protected:
        ~keeper() = default;
    };

    // A call shorter than the interval reaches the keeper folded into its session's use; one
    // that spans a flush is told as a start and an end (about 12k instructions on the actor
    // threads). With 256 sessions calling an upstream that answers in 12 ms, 60% of calls
    // spanned a 20 ms interval; 5% span this one.
    static constexpr std::chrono::milliseconds default_interval{250};

    keeper_feed(boost::asio::any_io_executor ex, keeper& to,
                std::chrono::steady_clock::duration interval = default_interval);
    keeper_feed(const keeper_feed&) = delete;
    keeper_feed& operator=(const keeper_feed&) = delete;

    // Anything but a call (dropped without a keeper).
    void tell(actors::bridge_event e);
    // A client's call went to its bridged session as request `upstream_id` (the strings
    // outlive the call: keeper_batch::open_call); it is over.
    void call_sent(keeper_batch::open_call& call, const std::string& session,
                   const std::string& client_id, const std::string& upstream,
                   std::int64_t upstream_id);
    void call_over(keeper_batch::open_call& call);
    // Before every question to the keeper. The interval's timer stays armed: re-arming it
    // here would cancel the wait and flush again at once, one message per event.
    void flush();
    bool present() const { return to_.present(); }

private:
    void arm();

    keeper& to_;
    keeper_batch events_;
    interval_gate gate_;
};

// The keeper of the actor set the supervisor publishes.
class current_keeper final : public keeper_feed::keeper {
public:
    explicit current_keeper(const actors::actor_directory& actors) : actors_(actors) {}
    bool present() const override;
    void send(std::vector<actors::bridge_event> batch) override;

private:
    const actors::actor_directory& actors_;
};

} // namespace gate::gateway
