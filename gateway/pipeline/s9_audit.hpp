// Stage 9, the single exit (s9_audit.cpp), and what it is given: the metrics it counts each
// request in, and the sinks a finished request goes to (the audit actor, the span sink, the
// recording, the embedder's hook), each as it stands when the request leaves.
#pragma once

#include "actors/sinks/audit_event.hpp"
#include "gateway/operations/metrics.hpp"
#include "gateway/operations/traffic_history.hpp"
#include "gateway/pipeline/stage.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gate::gateway::pipeline {

class audit_services {
public:
    // Which sinks take what a request leaves now (a respawn replaces an actor; between a
    // crash and its respawn there is none), asked once per request.
    struct open_sinks {
        bool audit = false;
        bool spans = false;
        bool hooked = false; // the embedder watches finished requests (gateway::on_request)
    };
    virtual open_sinks sinks() const = 0;
    // Handed to their sinks with the io loop's next turn; a drop is counted in their tally.
    virtual void audit(actors::audit_event e) = 0;
    virtual void spans(std::vector<std::string> spans) = 0;
    // gate --record: what became of a message heard as it arrived (ctx.message.heard).
    virtual void heard(request_context& ctx) = 0;
    // The embedder's hook, for a request that reached MCP handling.
    virtual void finished(const request_context& ctx) = 0;

protected:
    ~audit_services() = default;
};

// `traffic`: the console's short history of each request (null: none kept).
std::unique_ptr<exit_stage> make_audit(audit_services& sinks, metrics& stats,
                                       traffic_history* traffic = nullptr);

} // namespace gate::gateway::pipeline
