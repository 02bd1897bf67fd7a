// A message for a client that is gone is not recorded; a request among them is answered here,
// or the upstream would wait for it until its own timeout.
#include "gateway/mcp/upstream_traffic.hpp"

#include "gateway/pipeline/client_bound.hpp"
#include "gateway/pipeline/decision_hook_client.hpp"
#include "gateway/pipeline/hook_check.hpp"
#include "policy/decision_hook.hpp"
#include "protocol/gateway_error.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/list_kind.hpp"
#include "protocol/ui_uri.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using protocol::gateway_error;

namespace {

std::string_view method_of(const json::object& m) {
    auto* v = m.if_contains("method");
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

} // namespace

void answer_upstream(const asio::any_io_executor& ex, std::shared_ptr<upstream_client> client,
                     const std::string& bridge, json::object reply, std::string source) {
    asio::co_spawn(
        ex,
        [client = std::move(client), bridge, reply = std::move(reply),
         source = std::move(source)]() mutable -> asio::awaitable<void> {
            co_await client->sender().deliver(bridge, std::move(reply), std::move(source));
        },
        asio::detached);
}

std::string upstream_traffic::to_client(const std::string& session, const std::string& upstream,
                                        upstream_message m) {
    auto& message = m.body();
    if (auto* id = message.if_contains("id")) {
        // Two upstreams (or two bridged sessions) may use the same id: the client sees one
        // minted by the gateway, and its answer is mapped back to the upstream's own.
        auto minted = services_.requests.mint_request_id();
        services_.requests.record_server_request(session, minted, upstream, std::move(*id));
        message["id"] = minted;
    }
    // Everything but the id as the upstream wrote it (a progress of 0.50, a schema's bounds).
    return protocol::serialize_preserving(message, m.raw());
}

void upstream_traffic::resource_updated(std::size_t position, const std::string& bridge,
                                        upstream_message m) {
    auto view = services_.views.current_view();
    std::string upstream = view->snap->upstream(position).id;
    std::string uri;
    if (auto* p = m.body().if_contains("params"); p && p->is_object())
        if (auto* u = p->as_object().if_contains("uri"); u && u->is_string()) {
            uri = std::string(u->get_string());
            // Holders know an App's view by its name here (protocol/ui_uri.hpp).
            auto seen = protocol::client_ui_uri(view->snap->codec, position, uri);
            if (seen != uri)
                *u = seen;
        }
    if (!services_.bridges.keeps_bridges() || uri.empty())
        return;
    std::optional<std::string> origin;
    if (!bridge.empty())
        origin = bridge;
    asio::co_spawn(
        ex_,
        [this, upstream, uri, origin, m = std::move(m)]() -> asio::awaitable<void> {
            auto who = co_await services_.bridges.subscribers(upstream, uri, origin);
            if (!who)
                co_return;
            auto text = protocol::serialize_preserving(m.body(), m.raw());
            for (const auto& s : *who)
                if (!services_.listens.deliver_to_listen(s, m))
                    services_.sessions.deliver(s, text);
        },
        asio::detached);
}

void upstream_traffic::on_message(const upstream_client* from, const std::string& bridge,
                                  upstream_message m) {
    const auto& message = m.body();
    auto view = services_.views.current_view();
    std::size_t position = 0;
    while (position < view->size() && view->made(position) != from)
        ++position;
    if (position == view->size())
        return; // a retired upstream's last words
    const auto& upstream = from->config().id;
    auto method = method_of(message);
    if (protocol::is_list_changed(method))
        return services_.lists.list_changed(*from, std::string(method));
    if (method == "notifications/resources/updated")
        return resource_updated(position, bridge, std::move(m));
    if (method == "notifications/tasks") {
        if (task_news_) // the tasks extension, on gate's listen
            task_news_->task_news(upstream, m);
        return;
    }
    if (bridge.empty()) {
        // The shared root session has no client: its log lines and the like stay here.
        spdlog::debug("upstream {} said {} on its shared session", upstream, method);
        return;
    }
    if (!services_.sessions.session_open(bridge)) {
        if (auto* id = message.if_contains("id"))
            answer_upstream(ex_, view->made_ptr(position), bridge,
                            protocol::make_gateway_error(
                                gateway_error::client_gone, *id,
                                protocol::gateway_error_text(gateway_error::client_gone)),
                            m.raw());
        return;
    }
    auto who = services_.sessions.principal_of(bridge);
    if (!admit_server_request(*view, position, who, message, bridge))
        return;
    if (hook_asks(*view, message, false))
        return judge_then_deliver(view, position, who, std::move(m), bridge,
                                  [this, bridge, upstream](upstream_message& allowed) {
                                      if (!services_.sessions.session_open(bridge))
                                          return false;
                                      services_.sessions.deliver(
                                          bridge, to_client(bridge, upstream, std::move(allowed)));
                                      return true;
                                  });
    services_.sessions.deliver(bridge, to_client(bridge, upstream, std::move(m)));
}

bool upstream_traffic::admit_server_request(const federation_view& view, std::size_t upstream,
                                            const policy::caller_ref& who,
                                            const json::object& request,
                                            const std::optional<std::string>& bridge) {
    auto method = method_of(request);
    const auto* id = request.if_contains("id");
    if (!view.snap->policy || method.empty() || method == "ping" || (bridge && !id))
        return true; // notifications (progress, logs) are not requests
    const auto& server = view.snap->upstream(upstream).id;
    // The judge toward a client decides (pipeline::client_bound), as for an input request.
    auto refused = pipeline::server_request_refused(*view.snap, who.get(), server, method);
    if (!refused)
        return true;
    auto why = std::move(*refused);
    if (bridge && id)
        answer_upstream(
            ex_, view.client_at(upstream), *bridge,
            protocol::make_gateway_error(gateway_error::server_request_denied, *id, why));
    audit_refused(method, server, who, std::move(why), std::nullopt);
    return false;
}

void upstream_traffic::audit_refused(std::string_view method, const std::string& server,
                                     const policy::caller_ref& who, std::string why,
                                     std::optional<json::object> said) {
    request_context denied;
    denied.admission.start = std::chrono::steady_clock::now();
    denied.method = std::string(method);
    denied.upstream = server;
    denied.who.caller = who;
    denied.audit.outcome = protocol::outcome::denied;
    denied.policy.decision = said ? "allow" : "deny"; // the policy's own; the hook's say beside it
    denied.policy.hook = std::move(said);
    denied.audit.error = std::move(why);
    // An upstream's request, not a client's: it entered by no door, and leaves by the exit alone.
    services_.exit.conclude(denied);
}

bool upstream_traffic::hook_asks(const federation_view& view, const json::object& request,
                                 bool embedded) {
    if (!pipeline::server_request_hook(*view.snap, services_.hook))
        return false;
    auto method = method_of(request);
    return !method.empty() && method != "ping" && (embedded || request.contains("id"));
}

asio::awaitable<bool> upstream_traffic::hook_admits(std::shared_ptr<const federation_view> view,
                                                    std::size_t upstream, policy::caller_ref who,
                                                    json::object request,
                                                    std::optional<std::string> bridge) {
    const auto& hook = *pipeline::server_request_hook(*view->snap, services_.hook);
    const auto& server = view->snap->upstream(upstream).id;
    auto method = method_of(request);
    auto q = pipeline::server_request_question(who.get(), server, request, hook);
    // An upstream's own request carries no trace of a client's request.
    auto said = co_await services_.hook->ask(hook, q.stage, describe(q), {});
    if (said.allowed(hook))
        co_return true;
    auto what = std::string(method) + " from upstream " + server + " to this client";
    auto e = said.what == hook_answer::said::deny ? gateway_error::hook_denied
                                                  : gateway_error::hook_failed;
    auto why = protocol::gateway_error_text(
        e, {what, said.what == hook_answer::said::deny
                      ? (said.reason.empty() ? std::string("no reason given") : said.reason)
                      : said.client_error()});
    // The upstream is told that it was refused, not the hook's reason (the audit has it): an
    // upstream may be a third party's.
    if (const auto* id = request.if_contains("id"); bridge && id)
        answer_upstream(
            ex_, view->client_at(upstream), *bridge,
            protocol::make_gateway_error(
                e, *id,
                protocol::gateway_error_text(e, {what, e == gateway_error::hook_denied
                                                           ? std::string("its reason is withheld")
                                                           : said.client_error()})));
    audit_refused(method, server, who, std::move(why), said.audit(q.stage));
    co_return false;
}

void upstream_traffic::judge_then_deliver(std::shared_ptr<const federation_view> view,
                                          std::size_t upstream, policy::caller_ref who,
                                          upstream_message m, std::string bridge,
                                          std::function<bool(upstream_message&)> deliver) {
    asio::co_spawn(
        ex_,
        [this, view = std::move(view), upstream, who = std::move(who), m = std::move(m),
         bridge = std::move(bridge),
         deliver = std::move(deliver)]() mutable -> asio::awaitable<void> {
            if (!co_await hook_admits(view, upstream, who, m.body(), bridge))
                co_return;
            auto source = std::string(m.raw());
            auto id = m.body().if_contains("id") ? m.body().at("id") : json::value(nullptr);
            if (deliver(m))
                co_return;
            answer_upstream(ex_, view->client_at(upstream), bridge,
                            protocol::make_gateway_error(
                                gateway_error::client_gone, id,
                                protocol::gateway_error_text(gateway_error::client_gone)),
                            std::move(source));
        },
        asio::detached);
}

} // namespace gate::gateway
