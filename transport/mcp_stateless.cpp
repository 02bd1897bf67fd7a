// 2026-07-28 clients on the same endpoint: stateless requests, each carrying its protocol
// version and capabilities in `_meta` and mirrored in headers. No session is created or
// needed; `server/discover` describes the federation; lists and calls go through the same
// stages as in a session (docs/protocol-eras.md).
#include "protocol/modern_request.hpp"
#include "transport/gateway_impl.hpp"
#include "transport/protocol_versions.hpp"

#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace ec = protocol::error_code;

namespace {

// Methods 2026-07-28 removed: a client of that revision gets 404 and -32601 for them.
bool removed_in_modern(std::string_view method) {
    return method == "initialize" || method == "ping" || method == "logging/setLevel" ||
           method == "resources/subscribe" || method == "resources/unsubscribe";
}

http_reply error_reply(http::status status, const json::value& id, int code, std::string text,
                       json::object data = {}) {
    auto body = protocol::make_error(id, code, text);
    if (!data.empty())
        body["error"].as_object()["data"] = std::move(data);
    return http_reply::json(status, json::serialize(body));
}

} // namespace

void complete_for_modern_client(json::object& response, request_record& rec) {
    auto* r = response.if_contains("result");
    auto* result = r ? r->if_object() : nullptr;
    if (!result || result->contains("resultType"))
        return;
    (*result)["resultType"] = "complete";
    rec.verbatim.clear();
}

bool is_modern_request(const http_request& req, const protocol::message& msg) {
    if (header_value(req, "MCP-Protocol-Version") == protocol::modern_protocol_version)
        return true;
    return msg.kind == protocol::message_kind::request &&
           protocol::claimed_version(msg.params()).has_value() && msg.method != "initialize";
}

asio::awaitable<std::optional<http_reply>> gateway::impl::mcp_stateless(const http_request& req,
                                                                        beast::tcp_stream& stream,
                                                                        protocol::message msg,
                                                                        request_record& rec) {
    rec.method = msg.method.empty() ? "response" : msg.method;
    if (msg.kind != protocol::message_kind::request) {
        // Notifications carry nothing gate acts on without a session (closing the response
        // stream is how a 2026-07-28 client cancels); accepted like any notification.
        finish(rec);
        co_return http_reply::empty(http::status::accepted);
    }
    auto refuse = [&](http::status status, int code, std::string text, json::object data = {}) {
        rec.outcome = "error";
        rec.error = text;
        finish(rec);
        return error_reply(status, msg.id, code, std::move(text), std::move(data));
    };
    protocol::modern_headers headers{header_value(req, "MCP-Protocol-Version"),
                                     header_value(req, "Mcp-Method"),
                                     header_value(req, "Mcp-Name")};
    if (auto bad = protocol::check_modern_request(msg.method, msg.params(), headers)) {
        if (bad->code == protocol::modern_code::unsupported_protocol_version) {
            // Everything this endpoint speaks, so the client can pick.
            json::array supported{protocol::modern_protocol_version};
            for (auto v : downstream_protocol_versions)
                supported.emplace_back(v);
            bad->data["supported"] = std::move(supported);
        }
        co_return refuse(static_cast<http::status>(bad->http_status), bad->code, bad->message,
                         std::move(bad->data));
    }
    if (removed_in_modern(msg.method))
        co_return refuse(http::status::not_found, ec::method_not_found,
                         "method not found: " + msg.method + " does not exist in " +
                             std::string(protocol::modern_protocol_version));
    if (msg.method == "server/discover") {
        std::string version;
        rec.trace.record(stage::authenticate);
        rec.trace.record(stage::global_limit);
        rec.trace.record(stage::route);
        auto init = co_await initialize(msg.id, {}, version, rec);
        json::object answer;
        if (auto* r = init.if_contains("result"); r && r->is_object()) {
            auto& result = r->as_object();
            json::array supported{protocol::modern_protocol_version};
            for (auto v : downstream_protocol_versions)
                supported.emplace_back(v);
            json::object discovered{{"supportedVersions", std::move(supported)},
                                    {"capabilities", result["capabilities"]},
                                    {"resultType", "complete"}};
            if (auto* i = result.if_contains("instructions"))
                discovered["instructions"] = *i;
            discovered["_meta"] = {{protocol::meta_server_info, result["serverInfo"]}};
            answer = protocol::make_result(msg.id, std::move(discovered));
        } else {
            answer = std::move(init); // the upstream's refusal, or -32041
        }
        rec.verbatim.clear();
        settle_outcome(rec, answer);
        finish(rec);
        co_return http_reply::json(http::status::ok, json::serialize(answer));
    }
    rec.modern = true;
    if (auto* meta = msg.params()->at("_meta").if_object())
        if (auto* caps = meta->if_contains(protocol::meta_client_capabilities);
            caps && caps->is_object())
            rec.modern_capabilities = caps->get_object();
    rec.client_id = json::serialize(msg.id);
    if (protocol::list_kind_of(msg.method)) {
        auto response = co_await handle("", msg.id, msg.method, msg.take_params(), rec);
        rec.trace.record(stage::egress);
        if (auto* r = response.if_contains("result"); r && r->is_object()) {
            // 2026-07-28 results say what they are and how long they may be cached; lists
            // are filtered per principal, so only privately.
            auto& result = r->as_object();
            complete_for_modern_client(response, rec);
            std::int64_t ttl = 0;
            bool first = true;
            for (std::size_t i = 0; i < rec.view->snap->size(); ++i) {
                auto t = std::max<std::int64_t>(0, rec.view->snap->upstream(i).cache_ttl_ms);
                ttl = first ? t : std::min(ttl, t);
                first = false;
            }
            result["ttlMs"] = ttl;
            result["cacheScope"] = "private";
        }
        settle_outcome(rec, response);
        finish(rec);
        co_return http_reply::json(http::status::ok, json::serialize(response));
    }
    // Everything else runs like a named call of a session, on the upstreams' shared root
    // sessions: a stateless client has no bridged session.
    co_return co_await streamed_call(stream, req, std::move(msg), std::move(rec));
}

} // namespace gate::transport
