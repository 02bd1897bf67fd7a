// Where an operation is one of the gateway's own coroutines, it is handed on as it is: the
// forwarding makes no frame.
#include "gateway/entry/mcp_method_services.hpp"

#include "actors/federation/task_keeper.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "transport/bridge.hpp"

#include <caf/send.hpp>

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;

asio::awaitable<std::optional<task_owner>> mcp_method_services::find(const std::string& task_id,
                                                                     std::uint64_t principal) {
    auto actors = g_.actors();
    if (!actors->tasks)
        co_return task_owner{};
    co_return co_await ask<task_owner>(actors->tasks, [&](reply_to<task_owner> r) {
        return task_find{task_id, principal, std::move(r)};
    });
}

void mcp_method_services::pin(const std::string& task_id, std::uint64_t principal,
                              const std::string& upstream) {
    if (auto actors = g_.actors(); actors->tasks)
        caf::anon_send(actors->tasks, task_pin{task_id, principal, upstream});
}

void mcp_method_services::locate(const std::string& task_id, const std::string& upstream) {
    if (auto actors = g_.actors(); actors->tasks)
        caf::anon_send(actors->tasks, task_locate{task_id, upstream});
}

asio::awaitable<std::optional<std::string>>
mcp_method_services::fleet_record(const std::string& task_id) {
    if (!g_.fleet)
        co_return std::nullopt;
    auto record = co_await g_.fleet->get("task", task_id);
    if (!record || !*record)
        co_return std::nullopt;
    co_return std::move(**record);
}

asio::awaitable<void> mcp_method_services::put_fleet_record(const std::string& task_id,
                                                            std::string record) {
    if (g_.fleet)
        co_await g_.fleet->put("task", task_id, record, task_registry::lifetime);
}

asio::awaitable<std::optional<budget_ledger::exhausted>>
mcp_method_services::charge(const request_context& ctx, std::size_t upstream) {
    return g_.budgets.charge(ctx, upstream);
}

asio::awaitable<upstream_reply> mcp_method_services::call(std::size_t upstream,
                                                          std::string_view method,
                                                          json::object params, request_context& ctx,
                                                          bool client_call) {
    return g_.calls.call(upstream, method, std::move(params), ctx, client_call);
}

asio::awaitable<std::variant<json::array, upstream_failure>>
mcp_method_services::fetch_tasks(std::size_t upstream, request_context& ctx) {
    upstream_calls::bridged_call call;
    auto on_bridge = g_.calls.bridged_context(ctx, upstream, call);
    call.tells_keeper = false; // a list is not a call the client can cancel
    co_return co_await ctx.view->clients[upstream]->fetch_list("tasks/list", "tasks", on_bridge);
}

asio::awaitable<task_services::list_page>
mcp_method_services::page(request_context& ctx, json::array merged,
                          std::optional<std::string> cursor) {
    using answer_t = std::variant<list_answer, route_error>;
    co_return co_await ask<answer_t>(
        g_.actors()->router_for(protocol::list_kind::tasks), [&](reply_to<answer_t> r) {
            return page_tasks{ctx.view->snap, std::move(merged), std::move(cursor),
                              task_owner_key(ctx), std::move(r)};
        });
}

asio::awaitable<std::optional<list_plan>> mcp_method_services::plan(protocol::list_kind kind,
                                                                    request_context& ctx) {
    // On the snapshot this request loaded, whatever reload came since (the router keeps it).
    auto plan = co_await ask<list_plan>(g_.actors()->router_for(kind), [&](reply_to<list_plan> r) {
        return plan_list{ctx.view->snap, kind, g_.calls.profile_of(ctx), std::move(r)};
    });
    if (plan && g_.fleet && !plan->fetch.empty())
        co_await g_.in_fleet.fill_from_fleet(kind, *plan, ctx);
    co_return plan;
}

asio::awaitable<std::variant<json::array, upstream_failure>>
mcp_method_services::fetch(protocol::list_kind kind, protocol::client_profile profile,
                           std::size_t upstream, std::string traceparent, ticket admitted,
                           request_context& ctx, std::vector<std::string>& written) {
    auto& client = ctx.view->clients[upstream];
    // Per-caller: fetched on the caller's bridged session with its credential (and never
    // cached: actors/federation/federation.cpp).
    upstream_calls::bridged_call call;
    auto on =
        client->per_caller() ? g_.calls.bridged_context(ctx, upstream, call) : traced_call(ctx);
    call.tells_keeper = false;
    on.profile = profile; // on the root session of the client's profile
    if (!traceparent.empty())
        on.traceparent = std::move(traceparent);
    auto traits = protocol::traits(kind);
    if (!admitted)
        co_return co_await client->fetch_list(traits.method, traits.key, on, &written);
    co_return co_await client->fetch_list(traits.method, traits.key, on, std::move(*admitted),
                                          &written);
}

void mcp_method_services::count(const std::string& upstream, std::string_view outcome,
                                double seconds) {
    g_.stats.upstream(upstream, outcome, seconds);
}

void mcp_method_services::share(protocol::list_kind kind, protocol::client_profile profile,
                                const upstream_client& upstream, const json::array& items,
                                const std::vector<std::string>& written) {
    if (g_.fleet)
        g_.in_fleet.share_list(kind, profile, upstream, items, written);
}

asio::awaitable<list_services::list_page>
mcp_method_services::complete(protocol::list_kind kind, const list_plan& plan,
                              std::vector<fetched_list> fetched, std::optional<std::string> cursor,
                              request_context& ctx) {
    // Icons go to clients under gate's origin, whether fetched here or read from the fleet's
    // store (shared as the upstream wrote them), so this instance can serve every one it lists.
    for (auto& f : fetched)
        if (f.items)
            g_.icons.rewrite_list(*plan.snap, f.upstream, protocol::traits(kind).method, *f.items);
    auto caller = cursor_owner_key(ctx);
    auto who = plan.snap->policy ? ctx.caller : nullptr;
    using answer_t = std::variant<list_answer, route_error>;
    co_return co_await ask<answer_t>(g_.actors()->router_for(kind), [&](reply_to<answer_t> r) {
        return complete_list{plan.snap,         kind,   plan.profile, std::move(fetched),
                             std::move(cursor), caller, std::move(r), std::move(who),
                             ctx.tenant_index};
    });
}

namespace {

// The list kind whose router resolves a call: by its name, a tool's or a prompt's.
protocol::list_kind kind_whose_router_resolves(std::string_view method,
                                               const json::object& params) {
    if (method == "tools/call")
        return protocol::list_kind::tools;
    if (method == "prompts/get")
        return protocol::list_kind::prompts;
    if (method == "completion/complete")
        if (auto* ref = params.if_contains("ref"); ref && ref->is_object())
            if (auto* type = ref->get_object().if_contains("type"); type && *type == "ref/prompt")
                return protocol::list_kind::prompts;
    return protocol::list_kind::resources;
}

} // namespace

asio::awaitable<std::optional<routed>> mcp_method_services::resolve(request_context& ctx,
                                                                    const std::string& method,
                                                                    const json::object& params) {
    // A tool's or prompt's name (a short alias: protocol/name_codec.hpp) is reversed by the
    // router that holds its kind's lists; anything else is a URI's, the resource router's.
    return ask<routed>(g_.actors()->router_for(kind_whose_router_resolves(method, params)),
                       [&](reply_to<routed> reply) {
                           return resolve_call{ctx.view->snap, method, params, std::move(reply)};
                       });
}

protocol::client_profile mcp_method_services::profile_of(request_context& ctx) {
    return g_.calls.profile_of(ctx);
}

bool mcp_method_services::answer_input(const std::string& session, const protocol::message& msg,
                                       std::string_view body) {
    return g_.inputs.answer(session, msg, body);
}

std::optional<server_request_target>
mcp_method_services::take_server_request(const std::string& session, const std::string& minted) {
    return g_.server_requests.take(session, minted);
}

asio::awaitable<std::optional<http_reply>>
mcp_method_services::answer_for_fleet(const std::string& session, const protocol::message& msg,
                                      request_context& ctx, std::string_view body) {
    if (!g_.fleet)
        co_return std::nullopt;
    co_return co_await g_.in_fleet.answer_for_fleet(session, msg, ctx, body);
}

void mcp_method_services::answered_here(const std::string& session, const std::string& minted) {
    if (g_.fleet)
        g_.in_fleet.answered_here(session, minted);
}

asio::awaitable<std::optional<call_target>>
mcp_method_services::cancelled_call(const std::string& session, const std::string& request_id) {
    if (!g_.keeper.present())
        co_return std::nullopt;
    g_.keeper.flush();
    auto found = co_await ask<std::optional<call_target>>(
        g_.actors()->bridges, [&](reply_to<std::optional<call_target>> r) {
            return bridge_cancel_lookup{session, request_id, std::move(r)};
        });
    if (!found)
        co_return std::nullopt;
    co_return std::move(*found);
}

json::object mcp_method_services::capabilities(const std::string& session) {
    return g_.sessions.capabilities(session);
}

void mcp_method_services::used(const std::string& session, const std::string& upstream) {
    g_.keeper.tell(bridge_used{session, upstream});
}

std::shared_ptr<const federation_view> mcp_method_services::current_view() {
    return g_.live;
}

void mcp_method_services::list_changed(const upstream_client& from, std::string method) {
    // The upstream's cached lists go first, so a client that lists again on the news sees
    // the new list; then every connected client hears it.
    for (const auto& router : g_.actors()->routers)
        caf::anon_send(router, invalidate_upstream{from.config().id});
    if (g_.fleet)
        g_.in_fleet.drop_shared_lists(from);
    g_.list_changes.announce(std::move(method));
}

asio::awaitable<std::optional<std::vector<std::string>>>
mcp_method_services::subscribers(const std::string& upstream, const std::string& uri,
                                 std::optional<std::string> origin) {
    g_.keeper.flush();
    return ask<std::vector<std::string>>(
        g_.actors()->bridges,
        [upstream, uri, origin = std::move(origin)](reply_to<std::vector<std::string>> r) mutable {
            return bridge_updated{upstream, uri, std::move(origin), std::move(r)};
        });
}

bool mcp_method_services::keeps_subscriptions() {
    return g_.keeper.present();
}

bool mcp_method_services::deliver_to_listen(const std::string& holder, const upstream_message& m) {
    return g_.listens.deliver(holder, m.body(), m.raw());
}

void mcp_method_services::task_news(const std::string& upstream, const upstream_message& m) {
    g_.listens.deliver_task_news(upstream, m.body(), m.raw());
}

bool mcp_method_services::session_open(const std::string& session) {
    return g_.sessions.contains(session);
}

caller_ref mcp_method_services::principal_of(const std::string& session) {
    return g_.sessions.principal_of(session);
}

void mcp_method_services::deliver(const std::string& session, const std::string& text) {
    g_.sessions.deliver(session, text);
}

std::string mcp_method_services::mint_request_id() {
    return "gate-" + g_.in_fleet.tag() + std::to_string(++g_.minted_ids);
}

void mcp_method_services::record_server_request(const std::string& session,
                                                const std::string& minted,
                                                const std::string& upstream,
                                                json::value upstream_id) {
    if (g_.fleet)
        g_.in_fleet.share_server_request(*g_.live, session, minted, upstream, upstream_id);
    g_.server_requests.opened(session, minted, {upstream, std::move(upstream_id)});
}

void mcp_method_services::audit(request_context& denied) {
    g_.stages.conclude(denied);
}

bool mcp_method_services::keeps_bridges() {
    return g_.actors()->bridges != nullptr;
}

void mcp_method_services::call_sent(keeper_batch::open_call& open, const std::string& session,
                                    const std::string& client_id, const std::string& upstream,
                                    std::int64_t upstream_id) {
    g_.keeper.call_sent(open, session, client_id, upstream, upstream_id);
}

void mcp_method_services::call_over(keeper_batch::open_call& open) {
    g_.keeper.call_over(open);
}

bool mcp_method_services::admit_server_request(const federation_view& view, std::size_t upstream,
                                               const caller_ref& who, const json::object& request,
                                               const std::optional<std::string>& bridge) {
    return g_.upstream_news.admit_server_request(view, upstream, who, request, bridge);
}

hook_asker* mcp_method_services::decision_hook() {
    return &g_.decisions;
}

bool mcp_method_services::hook_asks(const federation_view& view, const json::object& request,
                                    bool embedded) {
    return g_.upstream_news.hook_asks(view, request, embedded);
}

asio::awaitable<bool> mcp_method_services::hook_admits(std::shared_ptr<const federation_view> view,
                                                       std::size_t upstream, caller_ref who,
                                                       json::object request,
                                                       std::optional<std::string> bridge) {
    return g_.upstream_news.hook_admits(std::move(view), upstream, std::move(who),
                                        std::move(request), std::move(bridge));
}

void mcp_method_services::judge_then_deliver(std::shared_ptr<const federation_view> view,
                                             std::size_t upstream, caller_ref who,
                                             upstream_message m, std::string bridge,
                                             std::function<bool(upstream_message&)> deliver) {
    g_.upstream_news.judge_then_deliver(std::move(view), upstream, std::move(who), std::move(m),
                                        std::move(bridge), std::move(deliver));
}

asio::awaitable<std::optional<protocol::sourced_object>>
mcp_method_services::ask_client_input(request_context& ctx, protocol::sourced_object request) {
    return g_.call_paths.ask_client_input(ctx, std::move(request));
}

void mcp_method_services::tool_dropped(const std::string& upstream, std::string_view reason) {
    g_.stats.tool_dropped(upstream, reason);
}

void mcp_method_services::count_eviction(std::string_view reason) {
    g_.stats.session_evicted(reason);
}

void mcp_method_services::count_refusal(std::string_view reason) {
    g_.stats.session_refused(reason);
}

void mcp_method_services::subscription_changed(const std::string& holder,
                                               const std::string& upstream, const std::string& uri,
                                               bool subscribed) {
    g_.keeper.tell(bridge_subscription{holder, upstream, uri, subscribed});
}

std::string mcp_method_services::mint_input_id() {
    return "gate-" + std::to_string(++g_.minted_ids);
}

parked_fleet mcp_method_services::parked_calls() {
    if (!g_.fleet || !g_.in_fleet.joined())
        return {};
    return {g_.fleet, g_.in_fleet.tag()};
}

asio::awaitable<bool> mcp_method_services::known_session(const std::string& session,
                                                         const caller_ref& caller,
                                                         const asio::ip::address& peer) {
    return g_.in_fleet.known_session(session, caller, peer);
}

void mcp_method_services::listening(const std::string& session, bool open) {
    g_.keeper.tell(bridge_listening{session, open});
}

bool mcp_method_services::stopping() const {
    return g_.server.stopping();
}

void mcp_method_services::end_everywhere(const std::string& session) {
    g_.in_fleet.end_session(session);
    g_.session_ended(session);
}

} // namespace gate::transport
