// The gateway's side of gate --record (docs/recording.md): a message the MCP endpoint could
// read is noted as it arrives (before any stage can change it) and handed to the recording at
// the exit with what became of it. Only runs with a tap.
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/operations/traffic_tap.hpp"

namespace gate::transport {

void gateway::impl::hear(const http_request& req, request_context& rec) {
    auto h = std::make_shared<heard_request>();
    h->seq = parts.tap->next_seq();
    h->at = std::chrono::system_clock::now();
    h->session = header_value(req, "Mcp-Session-Id");
    h->version = header_value(req, "MCP-Protocol-Version");
    h->body = req.body();
    rec.heard = std::move(h);
}

void gateway::impl::heard_exit(request_context& rec) {
    auto h = std::move(rec.heard);
    if (!parts.tap)
        return;
    // An initialize names the session it opened, so the replay knows whose messages follow.
    if (h->session.empty())
        for (const auto& [name, value] : rec.reply_headers)
            if (name == "Mcp-Session-Id")
                h->session = value;
    h->caller = rec.caller;
    h->outcome = std::string(protocol::name(rec.outcome));
    h->upstream = rec.upstream;
    parts.tap->heard(std::move(*h));
}

} // namespace gate::transport
