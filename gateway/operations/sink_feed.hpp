// The io thread's side of the audit and span sinks: what requests finished in one turn of the
// loop goes to each sink as one message, posted to run after the handlers already queued. A
// busy gateway then wakes its sinks (actor threads that share the cores with the io thread) a
// few hundred times a second instead of once per request; a quiet one sends each event at
// once, since the turn ends right after its request.
#pragma once

#include "actors/sinks/audit_event.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <string>
#include <vector>

namespace gate::actors {
class actor_directory;
}

namespace gate::gateway {

class sink_feed {
public:
    // Where one turn's events go (either may be empty); dropped where no sink is configured.
    class sinks {
    public:
        virtual void send(std::vector<actors::audit_event> audit,
                          std::vector<std::string> spans) = 0;

    protected:
        ~sinks() = default;
    };

    sink_feed(boost::asio::any_io_executor ex, sinks& to) : ex_(std::move(ex)), to_(to) {}
    sink_feed(const sink_feed&) = delete;
    sink_feed& operator=(const sink_feed&) = delete;

    void audit(actors::audit_event e);
    void spans(std::vector<std::string> spans);
    // What is queued goes now (the turn's feed, or before a shutdown's flush).
    void feed();

private:
    void post();

    boost::asio::any_io_executor ex_;
    sinks& to_;
    std::vector<actors::audit_event> audit_;
    std::vector<std::string> spans_;
    bool posted_ = false;
};

// The sinks of the actor set the supervisor publishes.
class current_sinks final : public sink_feed::sinks {
public:
    explicit current_sinks(const actors::actor_directory& actors) : actors_(actors) {}
    void send(std::vector<actors::audit_event> audit, std::vector<std::string> spans) override;

private:
    const actors::actor_directory& actors_;
};

} // namespace gate::gateway
