// A call's route and a list's plan are the routers' asks handed on as they are (no frame of
// the line's own: the route is on every named call); a list's page and the tasks' page wait
// in a frame of their own, which the icons' rewrite and the moved arguments need.
#include "gateway/mcp/router_line.hpp"

#include "actors/bridge.hpp"
#include "actors/supervision/supervisor.hpp"
#include "gateway/mcp/icon_proxy.hpp"

#include <caf/send.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

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

void router_line::list_changed(const upstream_client& from, std::string method) {
    for (const auto& router : actors_.load()->routers)
        caf::anon_send(router, actors::invalidate_upstream{from.config().id});
    sharing_.drop_shared_lists(from);
    clients_.announce_heard(std::move(method));
}

asio::awaitable<std::optional<actors::routed>>
router_line::resolve(request_context& ctx, const std::string& method, const json::object& params) {
    // A tool's or prompt's name (a short alias: protocol/name_codec.hpp) is reversed by the
    // router that holds its kind's lists; anything else is a URI's, the resource router's.
    return actors::ask<actors::routed>(
        actors_.load()->router_for(kind_whose_router_resolves(method, params)),
        [&](actors::reply_to<actors::routed> reply) {
            return actors::resolve_call{ctx.view->snap, method, params, std::move(reply),
                                        ctx.who.tenant_index};
        });
}

asio::awaitable<std::optional<actors::list_plan>> router_line::plan(protocol::list_kind kind,
                                                                    request_context& ctx) {
    auto profile = profiles_.profile_of(ctx);
    return actors::ask<actors::list_plan>(
        actors_.load()->router_for(kind), [&ctx, kind, profile](auto r) {
            return actors::plan_list{ctx.view->snap, kind, profile, std::move(r)};
        });
}

void router_line::rewrite_icons(protocol::list_kind kind, const actors::list_plan& plan,
                                std::vector<actors::fetched_list>& fetched) {
    // Icons go to clients under gate's origin, whether fetched here or read from the fleet's
    // store (shared as the upstream wrote them), so this instance can serve every one it lists.
    for (auto& f : fetched)
        if (f.items)
            icons_.rewrite_list(*plan.snap, f.upstream, protocol::traits(kind).method, *f.items);
}

asio::awaitable<std::optional<actors::found_tools>>
router_line::query(const actors::list_plan& plan, std::vector<actors::fetched_list> fetched,
                   std::string words, std::size_t limit,
                   std::optional<std::vector<std::string>> names, request_context& ctx) {
    rewrite_icons(protocol::list_kind::tools, plan, fetched);
    auto who = plan.snap->policy ? ctx.who.caller : nullptr;
    co_return co_await actors::ask<actors::found_tools>(
        actors_.load()->router_for(protocol::list_kind::tools),
        [&](actors::reply_to<actors::found_tools> r) {
            return actors::query_tools{plan.snap,        plan.profile,   std::move(fetched),
                                       std::move(words), limit,          std::move(names),
                                       std::move(r),     std::move(who), ctx.who.tenant_index};
        });
}

asio::awaitable<router_line::list_page>
router_line::complete(protocol::list_kind kind, const actors::list_plan& plan,
                      std::vector<actors::fetched_list> fetched, std::optional<std::string> cursor,
                      request_context& ctx, std::shared_ptr<const actors::tool_listing> searching) {
    rewrite_icons(kind, plan, fetched);
    auto caller = cursor_owner_key(ctx);
    auto who = plan.snap->policy ? ctx.who.caller : nullptr;
    using answer_t = std::variant<actors::list_answer, actors::route_error>;
    co_return co_await actors::ask<answer_t>(
        actors_.load()->router_for(kind), [&](actors::reply_to<answer_t> r) {
            return actors::complete_list{
                plan.snap, kind,         plan.profile,   std::move(fetched),   std::move(cursor),
                caller,    std::move(r), std::move(who), ctx.who.tenant_index, searching};
        });
}

asio::awaitable<router_line::list_page> router_line::page(request_context& ctx, json::array merged,
                                                          std::optional<std::string> cursor) {
    using answer_t = std::variant<actors::list_answer, actors::route_error>;
    co_return co_await actors::ask<answer_t>(
        actors_.load()->router_for(protocol::list_kind::tasks), [&](actors::reply_to<answer_t> r) {
            return actors::page_tasks{ctx.view->snap, std::move(merged), std::move(cursor),
                                      task_owner_key(ctx), std::move(r)};
        });
}

} // namespace gate::gateway
