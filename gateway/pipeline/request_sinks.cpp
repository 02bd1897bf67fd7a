// gate --record's side here (docs/recording.md): a message the MCP endpoint could read is noted
// as it arrives (before any stage can change it) and handed to the recording at the exit with
// what became of it. Only runs with a tap.
#include "gateway/pipeline/request_sinks.hpp"

#include "actors/supervision/supervisor.hpp"
#include "gateway/operations/traffic_tap.hpp"
#include "transport/http/http_server.hpp"

namespace gate::gateway {

request_sinks::request_sinks(boost::asio::any_io_executor ex, const actors::actor_directory& actors,
                             std::shared_ptr<traffic_tap> tap, const request_hook& hook)
    : actors_(actors), line_(actors), feed_(std::move(ex), line_), tap_(std::move(tap)),
      hook_(hook) {}

pipeline::audit_services::open_sinks request_sinks::sinks() const {
    auto actors = actors_.load();
    return {static_cast<bool>(actors->audit), static_cast<bool>(actors->spans),
            static_cast<bool>(hook_)};
}

void request_sinks::hear(const transport::http_request& req, request_context& rec) {
    auto h = std::make_shared<actors::heard_request>();
    h->seq = tap_->next_seq();
    h->at = std::chrono::system_clock::now();
    h->session = header_value(req, "Mcp-Session-Id");
    h->version = header_value(req, "MCP-Protocol-Version");
    h->body = req.body();
    rec.message.heard = std::move(h);
}

void request_sinks::heard(request_context& rec) {
    auto h = std::move(rec.message.heard);
    if (!tap_)
        return;
    // An initialize names the session it opened, so the replay knows whose messages follow.
    if (h->session.empty())
        for (const auto& [name, value] : rec.answer.headers)
            if (name == "Mcp-Session-Id")
                h->session = value;
    h->caller = rec.who.caller;
    h->outcome = std::string(protocol::name(rec.audit.outcome));
    h->upstream = rec.upstream;
    tap_->heard(std::move(*h));
}

} // namespace gate::gateway
