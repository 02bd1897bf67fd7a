// A listen holds each URI it asked for at its owner under the listen's key, and releases them
// all when the listener hangs up.
#include "gateway/mcp/listen_methods.hpp"

#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/hook_check.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/modern_request.hpp"
#include "transport/http/sse.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;
using namespace boost::asio::experimental::awaitable_operators;

namespace {
// A comment frame this often tells a listener gate is alive and finds one that left.
constexpr auto listen_keep_alive = std::chrono::seconds(15);

// Whether the caller of `rec` may hear of `uri` at the upstream that owns it: one the tenant
// does not see owns no URI for it, and a URI the caller may not read (as stage 5 decides
// resources/subscribe) is not honoured, never subscribed upstream.
bool may_listen(const request_context& rec, std::size_t upstream, const std::string& uri) {
    const auto& server = rec.view->snap->upstream(upstream).id;
    if (rec.tenant_index && !rec.view->snap->tenants->sees(*rec.tenant_index, server))
        return false;
    if (const auto& policy = rec.view->snap->policy) {
        static constexpr std::string_view covering[] = {"resources/subscribe", "resources/read"};
        return policy->decide(rec.caller ? &*rec.caller : nullptr, {server, covering, uri, uri})
            .allowed;
    }
    return true;
}

// A listen's event stream: its first frame (the acknowledgment), then what is queued for it,
// until gate ends it or the listener hangs up.
asio::awaitable<void> stream_listen(boost::beast::tcp_stream& stream, unsigned version,
                                    message_queue& out, std::string frame) {
    // 2026-07-28 streams carry no event ids: a broken stream is re-listened, not resumed.
    if (co_await open_event_stream(stream, version, "gate", std::nullopt))
        co_return;
    while (!co_await write_event_chunk(stream, frame)) {
        if (out.answered && out.frames.empty()) {
            co_await close_event_stream(stream);
            break;
        }
        if (out.frames.empty()) {
            // A push or the keep-alive period wakes it; so does the listener hanging up
            // (its socket turns readable at EOF), which releases what it held at once.
            boost::system::error_code wake_ec, hangup_ec;
            out.wake.expires_after(listen_keep_alive);
            auto woke = co_await (
                out.wake.async_wait(asio::redirect_error(asio::use_awaitable, wake_ec)) ||
                stream.socket().async_wait(asio::ip::tcp::socket::wait_read,
                                           asio::redirect_error(asio::use_awaitable, hangup_ec)));
            if (woke.index() == 1)
                break;
        }
        frame.clear();
        for (; !out.frames.empty(); out.frames.pop_front())
            frame += format_sse(out.frames.front());
        if (frame.empty())
            frame = ": keep-alive\n\n";
    }
}
} // namespace

asio::awaitable<std::optional<upstream_failure>>
listen_methods::hold(const std::string& holder, const std::shared_ptr<upstream_client>& owner,
                     const std::string& uri) {
    auto held = co_await holds_.hold(holder, owner, uri);
    if (held.added)
        services_.subscription_changed(holder, owner->config().id, uri, true);
    co_return std::move(held.refused);
}

asio::awaitable<bool> listen_methods::hook_lets_listen(request_context& rec, const route& target,
                                                       const std::string& uri,
                                                       const std::string& upstream_uri) {
    auto* asker = services_.decision_hook();
    const auto* hook =
        asker ? pipeline::hook_asked_at(rec.view->snap->doc->policy, hook_stage::call) : nullptr;
    if (!hook)
        co_return true;
    const auto& server = rec.view->snap->upstream(target.upstream).id;
    auto q = pipeline::hook_question_of(rec, hook_stage::call, server, upstream_uri);
    q.method = "resources/subscribe";
    q.name = uri;
    auto said = co_await asker->ask(*hook, hook_stage::call, describe(q), rec.traceparent);
    // Left out of the acknowledgment, as a URI the rules refuse is: the listen goes on.
    co_return said.allowed(*hook);
}

// What gate honours of the filter a listen asked for: every kind of list change (an
// upstream's, and its own on reload), and each URI whose upstream accepted gate's
// subscription, held under the listen's key.
asio::awaitable<protocol::subscription_filter>
listen_methods::honoured_filter(const protocol::subscription_filter& asked, const std::string& key,
                                const json::value& id, request_context& rec) {
    auto honoured = asked;
    honoured.resource_subscriptions.clear();
    honoured.task_ids.clear(); // hold_task_news decides those
    for (const auto& uri : asked.resource_subscriptions) {
        request_context side;
        side.view = rec.view;
        side.traceparent = rec.traceparent;
        auto routing =
            co_await routes_.named("resources/subscribe", id, json::object{{"uri", uri}}, side);
        rec.upstream_calls += side.upstream_calls + 1;
        auto* target = std::get_if<route>(&routing);
        if (!target || !may_listen(rec, target->upstream, uri))
            continue;
        // Held under the URI the upstream wrote (an App's view has another here: its updates
        // come back renamed, protocol/ui_uri.hpp); honoured under the client's.
        auto* own = target->params.if_contains("uri");
        std::string upstream_uri = own && own->is_string() ? std::string(own->get_string()) : uri;
        if (!co_await hook_lets_listen(rec, *target, uri, upstream_uri))
            continue;
        if (!co_await hold(key, rec.view->clients[target->upstream], upstream_uri))
            honoured.resource_subscriptions.insert(uri);
    }
    co_return honoured;
}

asio::awaitable<listen_methods::task_news>
listen_methods::hold_task_news(const std::set<std::string>& asked, request_context& rec) {
    task_news news;
    for (const auto& task : asked) {
        // A task gate knows of that the caller may ask after (tasks/get at its owner); any
        // other id is left out of the acknowledgment, as an unknown one would be.
        auto at = co_await tasks_.holder(task, rec);
        if (!at)
            continue;
        const auto& owner = rec.view->clients[*at];
        ++rec.upstream_calls;
        if (auto refused = co_await owner->hold_task_news(task)) {
            spdlog::debug("listen: task {} not heard of at {}: {}", task, owner->config().id,
                          refused->message);
            continue;
        }
        news.honoured.insert(task);
        news.owners[task] = owner->config().id;
        news.held.emplace_back(owner, task);
    }
    co_return news;
}

void listen_methods::task_news::release() const {
    for (const auto& [client, task] : held)
        if (auto c = client.lock())
            c->release_task_news(task);
}

void listen_methods::record(const request_context& rec, const std::string& uri, bool subscribed) {
    if (rec.upstream)
        services_.subscription_changed(rec.session, *rec.upstream, uri, subscribed);
}

asio::awaitable<json::object>
listen_methods::subscribe_at_modern_upstream(const std::string& method, const json::value& id,
                                             const route& target, request_context& rec) {
    rec.trace.record(stage::authorize);
    rec.trace.record(stage::upstream_guards);
    rec.trace.record(stage::proxy);
    std::string uri;
    if (auto* u = target.params.if_contains("uri"); u && u->is_string())
        uri = std::string(u->get_string());
    const auto& owner = rec.view->clients[target.upstream];
    ++rec.upstream_calls;
    if (method == "resources/unsubscribe") {
        if (holds_.release(rec.session, owner->config().id, uri))
            services_.subscription_changed(rec.session, owner->config().id, uri, false);
        co_return protocol::make_result(id, json::object{});
    }
    auto refused = co_await hold(rec.session, owner, uri);
    if (!refused)
        co_return protocol::make_result(id, json::object{});
    if (refused->answer) // the upstream's own refusal
        co_return pass_on(std::move(*refused->answer), id, rec);
    if (refused->what == upstream_failure::kind::protocol)
        co_return refusal(rec, id, gateway_error::method_not_found, {refused->message});
    co_return refuse_upstream(rec, id, owner->config().id, *refused);
}

asio::awaitable<std::optional<http_reply>> listen_methods::listen(boost::beast::tcp_stream& stream,
                                                                  const http_request& req,
                                                                  protocol::message msg,
                                                                  request_context rec) {
    rec.trace.record(stage::route);
    auto parsed = protocol::parse_subscription_filter(msg.params());
    if (auto* why = std::get_if<std::string>(&parsed)) {
        rec.id = msg.id;
        refuse(rec, gateway_error::invalid_params, {*why});
        // The listen owns its context (moved into this coroutine): it leaves by the exit here.
        services_.audit(rec);
        co_return http_reply::json(http::status::ok, json::serialize(*rec.response));
    }
    auto& asked = std::get<protocol::subscription_filter>(parsed);
    auto key = listens_.next_key();
    auto honoured = co_await honoured_filter(asked, key, msg.id, rec);
    auto tasks = co_await hold_task_news(asked.task_ids, rec);
    honoured.task_ids = tasks.honoured;
    rec.trace.record(stage::authorize);
    rec.trace.record(stage::upstream_guards);
    rec.trace.record(stage::proxy);
    json::object ack{{"jsonrpc", "2.0"},
                     {"method", protocol::subscriptions_acknowledged},
                     {"params", {{"notifications", honoured.to_json()}}}};
    protocol::stamp_subscription(ack, msg.id);
    auto out = listens_.open(key, msg.id, std::move(honoured), co_await asio::this_coro::executor,
                             tasks.owners);
    co_await stream_listen(stream, req.version(), *out, format_sse(json::serialize(ack)));
    // The listener hung up (or gate is stopping): what it held is released.
    listens_.close(key);
    holds_.release_all(key);
    tasks.release();
    rec.trace.record(stage::egress);
    services_.audit(rec); // a listen's only answer is its stream, over when the listener leaves
    co_return std::nullopt;
}

} // namespace gate::transport
