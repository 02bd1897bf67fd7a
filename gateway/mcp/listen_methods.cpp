// A listen holds each URI it asked for at its owner under the listen's key, and releases them
// all when the listener hangs up.
#include "gateway/mcp/listen_methods.hpp"

#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/hook_check.hpp"
#include "process/version.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/modern_request.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;
using namespace boost::asio::experimental::awaitable_operators;

namespace {
// A comment frame this often tells a listener gate is alive and finds one that left.
constexpr auto listen_keep_alive = std::chrono::seconds(15);

// Whether the caller of `rec` may hear of the URI `target` routed (its canonical identity: the
// upstream's own URI and the one gate lists, whichever the listen named) at the upstream that
// owns it: one the tenant does not see owns no URI for it, and a URI the caller may not read
// (as stage 5 decides resources/subscribe) is not honoured, never subscribed upstream.
bool may_listen(const request_context& rec, const actors::route& target, const std::string& own) {
    const auto& server = rec.view->snap->upstream(target.upstream).id;
    if (rec.who.tenant_index && !rec.view->snap->tenants->sees(*rec.who.tenant_index, server))
        return false;
    if (const auto& policy = rec.view->snap->policy) {
        static constexpr std::string_view covering[] = {"resources/subscribe", "resources/read"};
        return policy
            ->decide(rec.who.caller ? &*rec.who.caller : nullptr,
                     {server, covering, own, target.name})
            .allowed;
    }
    return true;
}

// A listen's event stream: its first frame (the acknowledgment), then what is queued for it,
// until gate ends it or the listener hangs up.
asio::awaitable<void> stream_listen(boost::beast::tcp_stream& stream, unsigned version,
                                    transport::message_queue& out, std::string frame) {
    // 2026-07-28 streams carry no event ids: a broken stream is re-listened, not resumed.
    if (co_await transport::open_event_stream(stream, version, "gate", std::nullopt))
        co_return;
    while (!co_await transport::write_event_chunk(stream, frame)) {
        if (out.answered && out.frames.empty()) {
            co_await transport::close_event_stream(stream);
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
        while (!out.frames.empty())
            frame += transport::format_sse(out.take());
        if (frame.empty())
            frame = ": keep-alive\n\n";
    }
}

// A listener asking after one of its tasks, as its tasks/get of the task at `upstream` would.
request_context listener_asking_after(const request_context& listener,
                                      std::shared_ptr<const federation_view> now,
                                      const std::string& task, const std::string& upstream) {
    auto asked = pipeline::judged_now(listener, std::move(now));
    asked.client.modern = true;
    asked.method = "tasks/get";
    asked.name = task;
    asked.upstream = upstream;
    return asked;
}
} // namespace

asio::awaitable<std::optional<upstream_failure>>
listen_methods::hold(const std::string& holder, const std::shared_ptr<upstream_client>& owner,
                     const std::string& uri) {
    auto held = co_await holds_.hold(holder, owner, uri);
    if (held.added)
        services_.bridges.subscription_changed(holder, owner->config().id, uri, true);
    co_return std::move(held.refused);
}

asio::awaitable<bool> listen_methods::hook_lets_listen(request_context& rec,
                                                       const actors::route& target,
                                                       const std::string& uri,
                                                       const std::string& upstream_uri) {
    auto* asker = services_.hook;
    const auto* hook =
        asker ? pipeline::hook_asked_at(rec.view->snap->doc->policy, policy::hook_stage::call)
              : nullptr;
    if (!hook)
        co_return true;
    const auto& server = rec.view->snap->upstream(target.upstream).id;
    auto q = pipeline::hook_question_of(rec, policy::hook_stage::call, server, upstream_uri);
    q.method = "resources/subscribe";
    q.name = target.name.empty() ? uri : target.name;
    auto said =
        co_await asker->ask(*hook, policy::hook_stage::call, describe(q), rec.tracing.traceparent);
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
        side.tracing.traceparent = rec.tracing.traceparent;
        side.who.tenant_index = rec.who.tenant_index; // a URI's owner is one its tenant sees
        auto routing = co_await routes_.route_named("resources/subscribe", id,
                                                    json::object{{"uri", uri}}, side);
        rec.audit.upstream_calls += side.audit.upstream_calls + 1;
        auto* target = std::get_if<actors::route>(&routing);
        if (!target)
            continue;
        // Held under the URI the upstream wrote (an App's view has another here: its updates
        // come back renamed, protocol/ui_uri.hpp); honoured under the client's.
        auto* own = target->params.if_contains("uri");
        std::string upstream_uri = own && own->is_string() ? std::string(own->get_string()) : uri;
        if (!may_listen(rec, *target, upstream_uri) ||
            !co_await hook_lets_listen(rec, *target, uri, upstream_uri))
            continue;
        if (!co_await hold(key, rec.view->client_at(target->upstream), upstream_uri))
            honoured.resource_subscriptions.insert(uri);
    }
    co_return honoured;
}

asio::awaitable<listen_methods::held_task_news>
listen_methods::hold_task_news(const std::set<std::string>& asked, request_context& rec) {
    held_task_news news;
    for (const auto& task : asked) {
        // A task gate knows of that the caller may ask after (tasks/get at its owner); any
        // other id is left out of the acknowledgment, as an unknown one would be.
        auto at = co_await tasks_.holder(task, rec);
        if (!at)
            continue;
        const auto& owner = rec.view->client_at(*at);
        ++rec.audit.upstream_calls;
        if (auto refused = co_await owner->streams().hold_task_news(task)) {
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

void listen_methods::held_task_news::release() const {
    for (const auto& [client, task] : held)
        if (auto c = client.lock())
            c->streams().release_task_news(task);
}

void listen_methods::task_news(const std::string& upstream, const upstream_message& m) {
    auto now = services_.views.current_view();
    // Egress of a finished task's result, once for every listener (it depends on the upstream
    // alone): its resource links' icons from gate's origin, as for the call's own answer.
    std::optional<std::pair<json::object, std::string>> linked;
    if (judge_.links_icons(*now->snap, m.raw()))
        linked = link_icons(*now->snap, upstream, m);
    const auto& news = linked ? linked->first : m.body();
    std::string_view text = linked ? std::string_view(linked->second) : m.raw();
    auto task = std::string(protocol::notification_subject(news));
    const auto* p = news.if_contains("params");
    const auto* params = p ? p->if_object() : nullptr;
    for (auto& heard : listens_.task_listeners(upstream, task)) {
        auto asked = std::make_shared<request_context>(
            listener_asking_after(*heard.listener, now, task, upstream));
        bool judged =
            params && ((params->contains("result") && judge_.result_hook(*asked)) ||
                       (params->contains("inputRequests") && judge_.judges_input(*asked)));
        auto place = judged ? listens_.hold_place(heard.key) : std::nullopt;
        if (!place) {
            listens_.deliver(heard.key, news, text);
            continue;
        }
        asio::co_spawn(
            heard.ex,
            pass_judged_task_news(heard.key, *place, std::move(asked), news, std::string(text)),
            asio::detached);
    }
}

std::optional<std::pair<json::object, std::string>>
listen_methods::link_icons(const actors::snapshot& snap, const std::string& upstream,
                           const upstream_message& m) const {
    auto news = m.body();
    auto* p = news.if_contains("params");
    auto* params = p ? p->if_object() : nullptr;
    auto* r = params ? params->if_contains("result") : nullptr;
    auto* result = r ? r->if_object() : nullptr;
    if (!result || !judge_.link_icons(snap, upstream, "notifications/tasks", *result))
        return std::nullopt;
    std::string text(m.raw());
    pipeline::write_again(text, news);
    return std::pair{std::move(news), std::move(text)};
}

asio::awaitable<void> listen_methods::pass_judged_task_news(std::string key, std::uint64_t place,
                                                            std::shared_ptr<request_context> asked,
                                                            json::object news, std::string source) {
    const auto& params = news.at("params").as_object();
    auto said = pipeline::verdict::answered;
    try {
        said = co_await judge_.judge_task(*asked, params, *asked->name, *asked->upstream);
    } catch (...) {
        listens_.fill_place(key, place, std::nullopt); // nothing, but the rest goes on
        throw;
    }
    if (said == pipeline::verdict::proceed) {
        listens_.fill_place(key, place, std::move(news), source);
        co_return;
    }
    auto failed = pipeline::refused_task(params, *asked->answer.response);
    news["params"] = std::move(failed);
    listens_.fill_place(key, place, std::move(news));
    asked->method = "notifications/tasks"; // audited as what was withheld
    services_.exit.conclude(*asked);
}

void listen_methods::record_subscription(const request_context& rec, const std::string& uri,
                                         bool subscribed) {
    if (rec.upstream)
        services_.bridges.subscription_changed(rec.client.session, *rec.upstream, uri, subscribed);
}

asio::awaitable<json::object>
listen_methods::subscribe_at_modern_upstream(const std::string& method, const json::value& id,
                                             const actors::route& target, request_context& rec) {
    rec.passage.trace.record(stage::authorize);
    rec.passage.trace.record(stage::upstream_guards);
    rec.passage.trace.record(stage::proxy);
    std::string uri;
    if (auto* u = target.params.if_contains("uri"); u && u->is_string())
        uri = std::string(u->get_string());
    const auto& owner = rec.view->client_at(target.upstream);
    ++rec.audit.upstream_calls;
    if (method == "resources/unsubscribe") {
        if (holds_.release(rec.client.session, owner->config().id, uri))
            services_.bridges.subscription_changed(rec.client.session, owner->config().id, uri,
                                                   false);
        co_return protocol::make_result(id, json::object{});
    }
    auto refused = co_await hold(rec.client.session, owner, uri);
    if (!refused)
        co_return protocol::make_result(id, json::object{});
    if (refused->answer) // the upstream's own refusal
        co_return pass_on(std::move(*refused->answer), id, rec);
    if (refused->what == upstream_failure::kind::protocol && !refused->capacity)
        co_return refusal(rec, id, gateway_error::method_not_found, {refused->message});
    co_return refuse_upstream(rec, id, owner->config().id, *refused);
}

asio::awaitable<std::optional<transport::http_reply>>
listen_methods::listen(boost::beast::tcp_stream& stream, const transport::http_request& req,
                       protocol::message msg, request_context rec) {
    rec.passage.trace.record(stage::route);
    auto parsed = protocol::parse_subscription_filter(msg.params());
    if (auto* why = std::get_if<std::string>(&parsed)) {
        rec.message.id = msg.id;
        refuse(rec, gateway_error::invalid_params, {*why});
        // The listen owns its context (moved into this coroutine): it leaves by the exit here.
        services_.exit.conclude(rec);
        co_return transport::http_reply::json(http::status::ok,
                                              json::serialize(*rec.answer.response));
    }
    auto& asked = std::get<protocol::subscription_filter>(parsed);
    auto key = listens_.next_key();
    auto honoured = co_await honoured_filter(asked, key, msg.id, rec);
    auto tasks = co_await hold_task_news(asked.task_ids, rec);
    honoured.task_ids = tasks.honoured;
    rec.passage.trace.record(stage::authorize);
    rec.passage.trace.record(stage::upstream_guards);
    rec.passage.trace.record(stage::proxy);
    json::object ack{{"jsonrpc", "2.0"},
                     {"method", protocol::subscriptions_acknowledged},
                     {"params", {{"notifications", honoured.to_json()}}}};
    protocol::stamp_subscription(ack, msg.id);
    auto out = listens_.open(key, msg.id, std::move(honoured), co_await asio::this_coro::executor,
                             tasks.owners, &rec);
    co_await stream_listen(stream, req.version(), *out,
                           transport::format_sse(json::serialize(ack)));
    // The listener hung up (or gate is stopping): what it held is released.
    listens_.close(key);
    holds_.release_all(key);
    tasks.release();
    rec.passage.trace.record(stage::egress);
    services_.exit.conclude(
        rec); // a listen's only answer is its stream, over when the listener leaves
    co_return std::nullopt;
}

} // namespace gate::gateway
