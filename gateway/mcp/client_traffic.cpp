// A client's answer goes back as the client wrote it (a sampled message, the numbers of a
// form), with only the id replaced by the upstream's own.
#include "gateway/mcp/client_traffic.hpp"

#include "gateway/pipeline/answers.hpp"
#include "protocol/modern_request.hpp"
#include "transport/io/fan_out.hpp"

#include <boost/beast/http/status.hpp>
#include <boost/json/serialize.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;

asio::awaitable<transport::http_reply> client_traffic::answer_upstream(const std::string& session,
                                                                       const protocol::message& msg,
                                                                       request_context& rec,
                                                                       std::string_view body) {
    // An answer to an input request of a 2026-07-28 upstream: the call waiting for it
    // continues with it.
    if (services_.answer_input(session, msg, body))
        co_return transport::http_reply::empty(http::status::accepted);
    std::optional<server_request_target> target;
    if (msg.id.is_string())
        target = services_.take_server_request(session, std::string(msg.id.get_string()));
    if (!target && msg.id.is_string()) {
        // Asked through another instance of the fleet: answered at the upstream session that
        // asked, from here.
        if (auto reply = co_await services_.answer_for_fleet(session, msg, rec, body))
            co_return std::move(*reply);
    } else if (target) {
        services_.answered_here(session, std::string(msg.id.get_string()));
    }
    auto* client = target ? rec.view->made(target->upstream) : nullptr; // the one that asked
    if (!client) {
        refuse(rec, gateway_error::answer_not_expected, {json::serialize(msg.id)});
        co_return std::move(*rec.answer.refusal_reply);
    }
    rec.upstream = target->upstream;
    json::object answer = msg.body;
    answer["id"] = target->upstream_id;
    ++rec.audit.upstream_calls;
    if (!co_await client->sender().deliver(session, std::move(answer), std::string(body))) {
        rec.audit.outcome = protocol::outcome::upstream_down;
        rec.audit.error = "the upstream session that asked is gone";
    }
    co_return transport::http_reply::empty(http::status::accepted);
}

asio::awaitable<void> client_traffic::cancel_upstream(const std::string& session,
                                                      const protocol::message& msg,
                                                      request_context& rec) {
    // A cancellation that finds nothing (the call already ended) is not an error.
    auto* p = msg.params();
    auto* request_id = p ? p->if_contains("requestId") : nullptr;
    if (!request_id)
        co_return;
    auto found = co_await bridges_.cancelled_call(session, json::serialize(*request_id));
    auto* client = found ? rec.view->made(found->upstream) : nullptr; // the call ran on it
    if (!client)
        co_return;
    rec.upstream = found->upstream;
    ++rec.audit.upstream_calls;
    co_await client->sender().cancel(session, found->upstream_id, p->if_contains("reason"));
}

asio::awaitable<transport::http_reply> client_traffic::from_client(const std::string& session,
                                                                   const protocol::message& msg,
                                                                   request_context& rec,
                                                                   std::string_view body) {
    if (msg.kind == protocol::message_kind::response)
        co_return co_await answer_upstream(session, msg, rec, body);
    if (msg.method == "notifications/cancelled") {
        co_await cancel_upstream(session, msg, rec);
    } else if (msg.method == "notifications/roots/list_changed") {
        // Every upstream this client has a bridged session with hears it (a client not made
        // on this thread has none).
        auto made = rec.view->made_clients(); // held across the awaits
        for (const auto& c : made)
            if (co_await c->sender().deliver(session, msg.body, std::string(body)))
                ++rec.audit.upstream_calls;
    }
    co_return transport::http_reply::empty(http::status::accepted);
}

asio::awaitable<json::object> client_traffic::set_log_level(const std::string& session,
                                                            const json::value& id,
                                                            const json::object& params,
                                                            request_context& rec) {
    auto* level = params.if_contains("level");
    if (!level || !level->is_string() || !protocol::is_log_level(level->get_string()))
        co_return refusal(rec, id, gateway_error::invalid_params,
                          {"level must be one of debug, info, notice, warning, error, critical, "
                           "alert, emergency"});
    std::string text(level->get_string());
    levels_.set(session, text); // for a client this thread makes later (tell_levels)
    auto made = rec.view->made_clients();
    auto capabilities = clients_.capabilities(session);
    co_await transport::fan_out<bool>(made.size(), [&](std::size_t i) -> asio::awaitable<bool> {
        co_await made[i]->sessions().set_log_level(session, text, capabilities);
        bridges_.used(session, made[i]->config().id);
        co_return true;
    });
    rec.audit.upstream_calls += static_cast<std::int64_t>(made.size());
    co_return protocol::make_result(id, json::object{});
}

void client_traffic::tell_levels(upstream_client& client) {
    for (const auto& [session, level] : levels_.all()) {
        client.sessions().keep_log_level(session, level, clients_.capabilities(session));
        bridges_.used(session, client.config().id);
    }
}

} // namespace gate::gateway
