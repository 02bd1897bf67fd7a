// 2026-07-28 clients on the same endpoint: stateless requests, each carrying its protocol
// version and capabilities in `_meta` and mirrored in headers. No session is created or
// needed; `server/discover` describes the federation; lists and calls go through the same
// stages as in a session (docs/protocol-eras.md).
#include "gateway/mcp/account_logins.hpp"
#include "gateway/mcp/endpoint.hpp"
#include "gateway/mcp/initialize.hpp"
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "protocol/modern_request.hpp"
#include "protocol/param_headers.hpp"
#include "protocol/protocol_versions.hpp"

#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;

namespace {

// A tools/call's Mcp-Param-* headers, kept on the request (gate forwards those it does not
// write itself) and checked against the arguments where gate knows the tool's x-mcp-header
// annotations (from the upstream's tools/list; an unknown header is forwarded and otherwise
// ignored, as the revision has intermediaries do). What does not mirror the body, if any.
std::optional<std::string> take_param_headers(const transport::http_request& req,
                                              const protocol::message& msg, request_context& rec) {
    rec.client.param_headers = headers_with_prefix(req, protocol::param_header_prefix);
    const auto* params = msg.params();
    auto* name = params ? params->if_contains("name") : nullptr;
    auto decoded =
        name && name->is_string() ? rec.view->snap->codec.decode(name->get_string()) : std::nullopt;
    if (!decoded || decoded->upstream >= rec.view->size())
        return std::nullopt;                         // routed (and refused) by the stages
    auto facts = rec.view->facts(decoded->upstream); // held while `wanted` is read
    std::string own(decoded->name);
    const protocol::param_headers* wanted = nullptr;
    if (decoded->maybe_alias) {
        // A short alias: the tool listed under it, if its annotations are known.
        const auto& codec = rec.view->snap->codec;
        std::string_view full = name->get_string();
        auto u = decoded->upstream;
        auto* found = facts->headers.find_if(
            [&](std::string_view tool) { return codec.client_name(u, tool) == full; });
        if (found) {
            own = found->first;
            wanted = &found->second;
        }
    } else {
        wanted = facts->headers.find(own);
    }
    if (!wanted)
        return std::nullopt;
    // A tool the caller may not call is refused by the stages as any other: what its
    // annotations ask of the headers is not told first.
    if (!may_call_tool(rec, decoded->upstream, own, name->get_string()))
        return std::nullopt;
    auto* arguments = params->if_contains("arguments");
    return protocol::check_param_headers(*wanted, arguments ? arguments->if_object() : nullptr,
                                         rec.client.param_headers);
}

} // namespace

asio::awaitable<transport::http_reply> mcp_endpoint::server_discover(const protocol::message& msg,
                                                                     request_context& rec) {
    std::string version;
    rec.passage.trace.record(stage::route);
    auto init = co_await initialize_answer(calls_, msg.id, {}, version, rec);
    json::object answer;
    if (auto* r = init.if_contains("result"); r && r->is_object()) {
        auto& result = r->as_object();
        // Discovery lists the stateless revisions only (earlier ones are negotiated by
        // initialize); its result is cacheable like a list, and private like the lists.
        auto capabilities = result["capabilities"];
        if (!rec.view->snap->codec.passthrough() && capabilities.is_object()) {
            // gate routes every task method to the task's owner, whichever upstream
            // answered a call with a CreateTaskResult (docs/sessions.md, "Tasks"). The
            // 2025-11-25 `tasks` capability is not this revision's: the extension is, beside
            // the others a federation serves (MCP Apps).
            auto& offered = capabilities.as_object();
            auto& extensions = offered["extensions"];
            if (!extensions.is_object())
                extensions = json::object{};
            extensions.as_object()[protocol::tasks_extension] = json::object{};
            offered.erase("tasks");
        }
        json::object discovered{
            {"supportedVersions", json::array{protocol::modern_protocol_version}},
            {"capabilities", std::move(capabilities)},
            {"resultType", "complete"},
            {"ttlMs", 0},
            {"cacheScope", "private"}};
        if (auto* i = result.if_contains("instructions"))
            discovered["instructions"] = *i;
        discovered["_meta"] = {{protocol::meta_server_info, result["serverInfo"]}};
        answer = protocol::make_result(msg.id, std::move(discovered));
    } else {
        answer = std::move(init); // the upstream's refusal, or -32041
    }
    rec.answer.verbatim.clear();
    settle_outcome(rec, answer);
    stages_.conclude(rec); // answered here, not by the stages: it leaves by the exit here
    co_return transport::http_reply::json(http::status::ok, json::serialize(answer));
}

asio::awaitable<std::optional<transport::http_reply>>
mcp_endpoint::stateless(const transport::http_request& req, beast::tcp_stream& stream,
                        protocol::message msg, request_context& rec) {
    rec.method = msg.method.empty() ? "response" : msg.method;
    if (msg.kind != protocol::message_kind::request) {
        // Notifications carry nothing gate acts on without a session (closing the response
        // stream is how a 2026-07-28 client cancels); accepted like any notification. An
        // answer this handler makes after the chain's entry leaves by the exit here.
        stages_.conclude(rec);
        co_return transport::http_reply::empty(http::status::accepted);
    }
    // The chain's entry checked the request's envelope and method (envelope_step).
    if (msg.method == "server/discover")
        co_return co_await server_discover(msg, rec);
    if (msg.method == "subscriptions/listen")
        co_return co_await listens_.listen(stream, req, std::move(msg), std::move(rec));
    if (msg.method == "tools/call")
        if (auto mismatch = take_param_headers(req, msg, rec)) {
            // A retry of a parked call too: its headers mirror its body like any call's.
            rec.message.id = msg.id;
            refuse(rec, error_answer{gateway_error::header_mismatch,
                                     std::move(*mismatch),
                                     msg.id,
                                     {},
                                     protocol::client_era::modern});
            stages_.conclude(rec);
            co_return answer_of(rec);
        }
    auto retry = take_login_retry(msg); // before any parked call is looked for
    rec.client.login_retry = std::move(retry.id);
    rec.client.login_declined = retry.declined;
    if (auto resumed = co_await call_paths_.resume_parked(stream, req, msg, rec))
        co_return std::move(*resumed);
    rec.client.modern = true;
    if (auto* meta = msg.params()->at("_meta").if_object()) {
        if (auto* caps = meta->if_contains(protocol::meta_client_capabilities);
            caps && caps->is_object())
            rec.client.modern_capabilities = caps->get_object();
        // Checked by the entry's envelope step: one of the eight levels.
        if (auto* level = meta->if_contains(protocol::meta_log_level); level && level->is_string())
            rec.client.modern_log_level = std::string(level->get_string());
    }
    rec.client.client_id = protocol::id_text(msg.id);
    if (protocol::list_kind_of(msg.method)) {
        // Stages 4-9; egress marks the result and its cacheability for this revision.
        rec.message.id = msg.id;
        rec.message.params = msg.take_params();
        if (auto routed = stages_.run(rec, stage::route); !routed.ready())
            co_await routed.take();
        co_return answer_of(rec);
    }
    // Everything else runs like a named call of a session, on the upstreams' shared root
    // sessions: a stateless client has no bridged session.
    co_return co_await call_paths_.streamed(stream, req, std::move(msg), rec);
}

} // namespace gate::gateway
