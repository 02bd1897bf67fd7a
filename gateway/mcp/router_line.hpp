// The io thread's questions to the routers (actors/federation/router_actor), each asked on the
// snapshot the request loaded, whatever reload came since (the router keeps it): a call's
// route, a list's plan and page, the tasks' page; and an upstream's cached lists dropped.
#pragma once

#include "gateway/mcp/call_routes.hpp"
#include "gateway/mcp/client_profiles.hpp"
#include "gateway/mcp/list_changed_feed.hpp"
#include "gateway/mcp/list_methods.hpp"
#include "gateway/mcp/task_methods.hpp"
#include "gateway/mcp/upstream_traffic.hpp"

namespace gate::actors {
class actor_directory;
}

namespace gate::gateway {

class icon_proxy;

class router_line final : public route_resolver,
                          public list_router,
                          public task_pages,
                          public list_news {
public:
    using list_page = list_router::list_page;

    // `icons`: a list's icons go to clients under gate's origin (complete). `sharing` and
    // `clients`: where an upstream's list news goes after the routers (list_changed).
    router_line(const actors::actor_directory& actors, client_profiles& profiles, icon_proxy& icons,
                list_sharing& sharing, list_changed_feed& clients)
        : actors_(actors), profiles_(profiles), icons_(icons), sharing_(sharing),
          clients_(clients) {}

private:
    boost::asio::awaitable<std::optional<actors::routed>>
    resolve(request_context& ctx, const std::string& method,
            const boost::json::object& params) override;
    boost::asio::awaitable<std::optional<actors::list_plan>> plan(protocol::list_kind kind,
                                                                  request_context& ctx) override;
    boost::asio::awaitable<list_page>
    complete(protocol::list_kind kind, const actors::list_plan& plan,
             std::vector<actors::fetched_list> fetched, std::optional<std::string> cursor,
             request_context& ctx, std::shared_ptr<const actors::tool_listing> searching) override;
    boost::asio::awaitable<std::optional<actors::found_tools>>
    query(const actors::list_plan& plan, std::vector<actors::fetched_list> fetched,
          std::string query, std::size_t limit, std::optional<std::vector<std::string>> names,
          request_context& ctx) override;
    // Fetched lists' icons go to clients under gate's origin.
    void rewrite_icons(protocol::list_kind kind, const actors::list_plan& plan,
                       std::vector<actors::fetched_list>& fetched);
    boost::asio::awaitable<list_page> page(request_context& ctx, boost::json::array merged,
                                           std::optional<std::string> cursor) override;
    // The upstream's cached lists go first (every router's, the fleet's), so a client that
    // lists again on the news sees the new list; then every connected client hears it.
    void list_changed(const upstream_client& from, std::string method) override;

    const actors::actor_directory& actors_;
    client_profiles& profiles_;
    icon_proxy& icons_;
    list_sharing& sharing_;
    list_changed_feed& clients_;
};

} // namespace gate::gateway
