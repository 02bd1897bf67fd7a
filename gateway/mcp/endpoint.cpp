// The MCP endpoint: streamable HTTP (2025-11-25, 2025-06-18) on server.mcpPath.
#include "gateway/mcp/endpoint.hpp"

#include "gateway/pipeline/client_answer.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/list_kind.hpp"

namespace gate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;

asio::awaitable<std::optional<transport::http_reply>>
mcp_endpoint::post(beast::tcp_stream& stream, request_context& rec, pipeline::arrival& a) {
    // The entry read the message, set its method and id, admitted a request past the limit,
    // started its trace and, within a session, checked the session and holds it in use
    // (a.in_use) until the returned coroutine ends.
    auto& msg = *a.msg;
    if (a.modern)
        return stateless(a.req, stream, std::move(msg), rec);
    if (msg.kind == protocol::message_kind::request && msg.method != "initialize" &&
        !protocol::list_kind_of(msg.method) && msg.method != "ping" &&
        msg.method != "logging/setLevel") {
        // A named call (task methods included): it runs on the client's bridged session, and
        // what the upstream sends while it runs reaches the client before the answer.
        rec.client.session = a.session;
        rec.client.client_id = protocol::id_text(msg.id);
        return call_paths_.streamed(stream, a.req, std::move(msg), rec);
    }
    return post_other(rec, a);
}

asio::awaitable<std::optional<transport::http_reply>>
mcp_endpoint::post_other(request_context& rec, pipeline::arrival& a) {
    auto& msg = *a.msg;
    if (msg.kind != protocol::message_kind::request) {
        // Notifications and the client's answers to upstream requests: bridged to the
        // upstream they concern. The answer is terminal like any other and audited once; it is
        // made here, after the entry, so it leaves by the exit here.
        auto reply = co_await from_clients_.from_client(a.session, msg, rec, a.req.body());
        stages_.conclude(rec);
        co_return reply;
    }
    rec.client.session = a.session; // empty for initialize, which opens one
    rec.client.client_id = protocol::id_text(msg.id);
    // Stages 4-9.
    rec.message.params = msg.take_params();
    if (auto routed = stages_.run(rec, stage::route); !routed.ready())
        co_await routed.take();
    co_return answer_of(rec);
}

} // namespace gate::gateway
