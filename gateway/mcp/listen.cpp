// Subscriptions without sessions: a 2026-07-28 client's `subscriptions/listen` (an event
// stream of the list changes and resource updates it asks for), and the resource
// subscriptions gate holds at upstreams for such listeners and for 2025-11-25 clients whose
// URI belongs to a 2026-07-28 upstream (which has no resources/subscribe).
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/modern_request.hpp"
#include "transport/http/sse.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

namespace gate::transport {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;
namespace ec = protocol::error_code;
using namespace boost::asio::experimental::awaitable_operators;

namespace {
// A comment frame this often tells a listener gate is alive and finds one that left.
constexpr auto listen_keep_alive = std::chrono::seconds(15);
} // namespace

asio::awaitable<std::optional<upstream_failure>>
gateway::impl::hold_subscription(const std::string& holder,
                                 const std::shared_ptr<upstream_client>& owner,
                                 const std::string& uri) {
    std::pair<std::string, std::string> key{owner->config().id, uri};
    if (held_subscriptions[holder].contains(key))
        co_return std::nullopt; // a repeated subscribe is one subscription
    if (auto refused = co_await owner->hold_subscription(uri))
        co_return refused;
    auto& held = held_subscriptions[holder];
    if (!held.emplace(key, owner).second) {
        owner->release_subscription(uri); // a concurrent subscribe of the same holder won
        co_return std::nullopt;
    }
    tell_keeper(bridge_subscription{holder, key.first, uri, true});
    co_return std::nullopt;
}

void gateway::impl::release_subscription(const std::string& holder, const std::string& upstream,
                                         const std::string& uri) {
    auto it = held_subscriptions.find(holder);
    if (it == held_subscriptions.end())
        return;
    auto entry = it->second.find({upstream, uri});
    if (entry == it->second.end())
        return;
    // The client that held it may have been replaced by a reload: the new one never held it.
    if (auto owner = entry->second.lock())
        owner->release_subscription(uri);
    it->second.erase(entry);
    if (it->second.empty())
        held_subscriptions.erase(it);
    tell_keeper(bridge_subscription{holder, upstream, uri, false});
}

void gateway::impl::release_all_subscriptions(const std::string& holder) {
    auto it = held_subscriptions.find(holder);
    if (it == held_subscriptions.end())
        return;
    for (const auto& [key, owner] : std::exchange(it->second, {}))
        if (auto o = owner.lock())
            o->release_subscription(key.second);
    held_subscriptions.erase(it);
}

bool gateway::impl::deliver_to_listener(const std::string& holder, const json::object& notification,
                                        std::string_view source) {
    auto it = listeners.find(holder);
    if (it == listeners.end())
        return false;
    auto& l = *it->second;
    std::string_view method, uri;
    if (auto* m = notification.if_contains("method"); m && m->is_string())
        method = m->get_string();
    if (auto* p = notification.if_contains("params"); p && p->is_object())
        if (auto* u = p->as_object().if_contains("uri"); u && u->is_string())
            uri = u->get_string();
    if (l.filter.accepts(method, uri)) {
        auto stamped = notification;
        protocol::stamp_subscription(stamped, l.id);
        // As the upstream wrote it (source), with the listener's stamp added.
        l.out->push(protocol::serialize_preserving(stamped, source));
    }
    return true;
}

asio::awaitable<json::object> gateway::impl::subscribe_at_modern_upstream(const std::string& method,
                                                                          const json::value& id,
                                                                          const route& target,
                                                                          request_context& rec) {
    rec.trace.record(stage::authorize);
    rec.trace.record(stage::upstream_guards);
    rec.trace.record(stage::proxy);
    std::string uri;
    if (auto* u = target.params.if_contains("uri"); u && u->is_string())
        uri = std::string(u->get_string());
    const auto& owner = rec.view->clients[target.upstream];
    ++rec.upstream_calls;
    if (method == "resources/unsubscribe") {
        release_subscription(rec.session, owner->config().id, uri);
        co_return protocol::make_result(id, json::object{});
    }
    auto refused = co_await hold_subscription(rec.session, owner, uri);
    if (!refused)
        co_return protocol::make_result(id, json::object{});
    if (refused->answer) // the upstream's own refusal
        co_return pass_on(std::move(*refused->answer), id, rec);
    if (refused->what == upstream_failure::kind::protocol)
        co_return refusal(rec, id, gateway_error::method_not_found, {refused->message});
    co_return refuse_upstream(rec, id, owner->config().id, *refused);
}

asio::awaitable<std::optional<http_reply>>
gateway::impl::listen_call(boost::beast::tcp_stream& stream, const http_request& req,
                           protocol::message msg, request_context rec) {
    rec.trace.record(stage::route);
    auto parsed = protocol::parse_subscription_filter(msg.params());
    if (auto* why = std::get_if<std::string>(&parsed)) {
        rec.id = msg.id;
        refuse(rec, gateway_error::invalid_params, {*why});
        // The listen owns its context (moved into this coroutine): it leaves by the exit here.
        stages.conclude(rec);
        co_return http_reply::json(http::status::ok, json::serialize(*rec.response));
    }
    auto& asked = std::get<protocol::subscription_filter>(parsed);
    auto key = "listen-" + std::to_string(++listen_keys);
    // gate announces every kind of list change (an upstream's, and its own on reload); a URI
    // is honoured when its upstream accepted gate's subscription.
    auto honoured = asked;
    honoured.resource_subscriptions.clear();
    for (const auto& uri : asked.resource_subscriptions) {
        request_context side;
        side.view = rec.view;
        side.traceparent = rec.traceparent;
        auto routing =
            co_await route_named("resources/subscribe", msg.id, json::object{{"uri", uri}}, side);
        rec.upstream_calls += side.upstream_calls + 1;
        auto* target = std::get_if<route>(&routing);
        if (!target)
            continue;
        if (rec.tenant_index &&
            !rec.view->snap->tenants->sees(*rec.tenant_index,
                                           rec.view->snap->upstream(target->upstream).id))
            continue; // an upstream the tenant does not see owns no URI for it
        if (const auto& policy = rec.view->snap->policy) {
            // As stage 5 decides resources/subscribe: a URI the caller may not read is not
            // honoured (left out of the acknowledgment), never subscribed upstream.
            static constexpr std::string_view covering[] = {"resources/subscribe",
                                                            "resources/read"};
            const auto& server = rec.view->snap->upstream(target->upstream).id;
            if (!policy->decide(rec.caller ? &*rec.caller : nullptr, server, covering, uri, uri)
                     .allowed)
                continue;
        }
        if (!co_await hold_subscription(key, rec.view->clients[target->upstream], uri))
            honoured.resource_subscriptions.insert(uri);
    }
    rec.trace.record(stage::authorize);
    rec.trace.record(stage::upstream_guards);
    rec.trace.record(stage::proxy);
    auto l = std::make_shared<listener>();
    l->id = msg.id;
    l->filter = honoured;
    l->out = std::make_shared<message_queue>(co_await asio::this_coro::executor);
    listeners[key] = l;
    json::object ack{{"jsonrpc", "2.0"},
                     {"method", protocol::subscriptions_acknowledged},
                     {"params", {{"notifications", honoured.to_json()}}}};
    protocol::stamp_subscription(ack, msg.id);
    // 2026-07-28 streams carry no event ids: a broken stream is re-listened, not resumed.
    std::string frame = format_sse(json::serialize(ack));
    if (!co_await open_event_stream(stream, req.version(), "gate", std::nullopt)) {
        auto& out = *l->out;
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
                    stream.socket().async_wait(
                        asio::ip::tcp::socket::wait_read,
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
    // The listener hung up (or gate is stopping): what it held is released.
    listeners.erase(key);
    release_all_subscriptions(key);
    rec.trace.record(stage::egress);
    stages.conclude(rec); // a listen's only answer is its stream, over when the listener leaves
    co_return std::nullopt;
}

void gateway::impl::close_listeners() {
    // The graceful end of a subscription: its result, then the stream closes.
    for (const auto& [key, l] : listeners) {
        json::object done{
            {"jsonrpc", "2.0"},
            {"id", l->id},
            {"result",
             {{"resultType", "complete"},
              {"_meta",
               {{protocol::meta_subscription_id, l->id},
                {protocol::meta_server_info, {{"name", "gate"}, {"version", gate_version}}}}}}}};
        l->out->push(json::serialize(done), true);
    }
}

} // namespace gate::transport
