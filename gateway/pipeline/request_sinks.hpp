// Where what a request leaves goes at the exit (stage 9): its audit event and spans to the sinks
// of the actor set the supervisor publishes, fed once per turn of the io loop (sink_feed); the
// message as it arrived, and what became of it, to gate --record's tap; the embedder's hook
// (gateway::on_request). The exit and the read step hold it through the interfaces it
// implements.
#pragma once

#include "gateway/operations/sink_feed.hpp"
#include "gateway/pipeline/entry_steps.hpp"
#include "gateway/pipeline/s9_audit.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>

namespace gate::gateway {

class traffic_tap;

class request_sinks final : public pipeline::audit_services, public pipeline::message_tap {
public:
    using request_hook = std::function<void(const request_context&)>;

    // `tap`: gate --record's (null: not recording); `hook`: the embedder's, which it may set
    // at any time (an empty function: none).
    request_sinks(boost::asio::any_io_executor ex, const actors::actor_directory& actors,
                  std::shared_ptr<traffic_tap> tap, const request_hook& hook);
    request_sinks(const request_sinks&) = delete;
    request_sinks& operator=(const request_sinks&) = delete;

    // The read step's tap, when recording (else null: no message is heard).
    pipeline::message_tap* tap() { return tap_ ? this : nullptr; }
    // What is queued goes now (before a shutdown's flush).
    void feed() { feed_.feed(); }
    // An audit event of the gateway's own (a pinned definition judged, say).
    void audit(actors::audit_event e) override { feed_.audit(std::move(e)); }

private:
    open_sinks sinks() const override;
    void spans(std::vector<std::string> spans) override { feed_.spans(std::move(spans)); }
    void heard(request_context& ctx) override;
    void finished(const request_context& ctx) override { hook_(ctx); }
    void hear(const transport::http_request& req, request_context& ctx) override;

    const actors::actor_directory& actors_;
    current_sinks line_;
    sink_feed feed_;
    std::shared_ptr<traffic_tap> tap_;
    const request_hook& hook_;
};

} // namespace gate::gateway
