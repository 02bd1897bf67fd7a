// Subscriptions without sessions: a 2026-07-28 client's `subscriptions/listen` (an event
// stream of the list changes and resource updates it asks for), and the resource
// subscriptions gate holds at upstreams for such listeners and for 2025-11-25 clients whose
// URI belongs to a 2026-07-28 upstream (which has no resources/subscribe).
#pragma once

#include "gateway/mcp/bridge_events.hpp"
#include "gateway/mcp/call_routes.hpp"
#include "gateway/mcp/listen_hub.hpp"
#include "gateway/mcp/subscription_holds.hpp"
#include "gateway/mcp/task_methods.hpp"
#include "gateway/mcp/upstream_traffic.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/client_bound.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/request_exit.hpp"
#include "gateway/upstream/live_federation.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/subscription_filter.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/json/object.hpp>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gate::gateway {

class hook_asker;

// What listens and held subscriptions are given, each part by its owner; fakes in
// tests/unit/listen_methods_test.cpp.
struct listen_services {
    // The federation as it is now (a reload swaps it): what a listen is pushed is judged on it.
    view_source& views;
    bridge_events& bridges;
    // A finished listen, out by the chain's exit (its context was moved into the listen).
    pipeline::request_exit& exit;
    hook_asker* hook;               // where policy.decisionHook is asked (null: never)
    pipeline::icon_rewriter& icons; // a pushed task's result's icons, as a call's
};

// Stages 7 and 8 subscribe at a 2026-07-28 upstream and record subscriptions through it
// (pipeline::subscription_stage_services).
class listen_methods final : public pipeline::subscription_stage_services, public task_news_sink {
public:
    listen_methods(listen_hub& listens, subscription_holds& holds, call_routes& routes,
                   task_methods& tasks, listen_services services)
        : listens_(listens), holds_(holds), routes_(routes), tasks_(tasks), services_(services),
          judge_(services.hook, &services.icons) {}

    // A 2026-07-28 client's listen: an event stream of what its filter asks for (and gate
    // honours), until it hangs up.
    boost::asio::awaitable<std::optional<transport::http_reply>>
    listen(boost::beast::tcp_stream& stream, const transport::http_request& req,
           protocol::message msg, request_context rec);
    // A 2025-11-25 client's resources/(un)subscribe at a 2026-07-28 upstream, which has no
    // such method: gate holds the URI in its own listen there and records the client.
    boost::asio::awaitable<boost::json::object>
    subscribe_at_modern_upstream(const std::string& method, const boost::json::value& id,
                                 const actors::route& target, request_context& rec) override;
    // A subscription the upstream accepted (or dropped), for the fan-out of its updates.
    void record_subscription(const request_context& rec, const std::string& uri,
                             bool subscribed) override;
    // An upstream's notifications/tasks, to each listen that holds the task there, judged as
    // that listener's tasks/get of the task would be now (pipeline::client_bound, on the
    // current view): a result or an input request the listener may not have reaches it as the
    // task failed with the refusal. One being judged holds its place in the listener's order.
    void task_news(const std::string& upstream, const upstream_message& m) override;

private:
    // `m` (an upstream's notifications/tasks) with its finished result's icons rewritten, and
    // its text written again; nullopt when nothing changed.
    std::optional<std::pair<boost::json::object, std::string>>
    link_icons(const actors::snapshot& snap, const std::string& upstream,
               const upstream_message& m) const;
    // Holds `uri` at `owner` for `holder`; one it did not hold yet is told to the keeper.
    boost::asio::awaitable<std::optional<upstream_failure>>
    hold(const std::string& holder, const std::shared_ptr<upstream_client>& owner,
         const std::string& uri);
    // Whether the decision hook, asked before calls, lets the listen hear of `uri` (the
    // upstream's `upstream_uri`), as it would decide the client's resources/subscribe of it:
    // true when none is asked.
    boost::asio::awaitable<bool> hook_lets_listen(request_context& rec, const actors::route& target,
                                                  const std::string& uri,
                                                  const std::string& upstream_uri);
    // What gate honours of the filter a listen asked for.
    boost::asio::awaitable<protocol::subscription_filter>
    honoured_filter(const protocol::subscription_filter& asked, const std::string& key,
                    const boost::json::value& id, request_context& rec);
    // The tasks extension's part of a listen: each task the caller may ask after, held at its
    // 2026-07-28 owner while the listen lasts.
    struct held_task_news {
        std::set<std::string> honoured;
        std::map<std::string, std::string> owners; // task id -> upstream id
        std::vector<std::pair<std::weak_ptr<upstream_client>, std::string>> held;
        void release() const;
    };
    boost::asio::awaitable<held_task_news> hold_task_news(const std::set<std::string>& asked,
                                                          request_context& rec);
    // One listener's notifications/tasks (`asked`: the listener asking after the task), judged
    // then queued for it at `place`; a refusal audited.
    boost::asio::awaitable<void> pass_judged_task_news(std::string key, std::uint64_t place,
                                                       std::shared_ptr<request_context> asked,
                                                       boost::json::object news,
                                                       std::string source);

    listen_hub& listens_;
    subscription_holds& holds_;
    call_routes& routes_;
    task_methods& tasks_;
    listen_services services_;
    pipeline::client_bound judge_;
};

} // namespace gate::gateway
