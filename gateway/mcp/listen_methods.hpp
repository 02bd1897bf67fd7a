// Subscriptions without sessions: a 2026-07-28 client's `subscriptions/listen` (an event
// stream of the list changes and resource updates it asks for), and the resource
// subscriptions gate holds at upstreams for such listeners and for 2025-11-25 clients whose
// URI belongs to a 2026-07-28 upstream (which has no resources/subscribe).
#pragma once

#include "gateway/mcp/call_routes.hpp"
#include "gateway/mcp/listen_hub.hpp"
#include "gateway/mcp/subscription_holds.hpp"
#include "gateway/mcp/task_methods.hpp"
#include "gateway/pipeline/request_context.hpp"
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

namespace gate::transport {

class hook_asker;

// What listens and held subscriptions ask of the gateway (answered by gateway/entry/
// mcp_method_services).
class listen_services {
public:
    // The bridge keeper hears of a subscription held (or released) for `holder` (a session,
    // or a listen's key) at `upstream`, for the fan-out of its updates.
    virtual void subscription_changed(const std::string& holder, const std::string& upstream,
                                      const std::string& uri, bool subscribed) = 0;
    // A finished listen, out by the chain's exit (its context was moved into the listen).
    virtual void audit(request_context& rec) = 0;
    // Where policy.decisionHook is asked (null: never).
    virtual hook_asker* decision_hook() = 0;

protected:
    ~listen_services() = default;
};

class listen_methods {
public:
    listen_methods(listen_hub& listens, subscription_holds& holds, call_routes& routes,
                   task_methods& tasks, listen_services& services)
        : listens_(listens), holds_(holds), routes_(routes), tasks_(tasks), services_(services) {}

    // A 2026-07-28 client's listen: an event stream of what its filter asks for (and gate
    // honours), until it hangs up.
    boost::asio::awaitable<std::optional<http_reply>> listen(boost::beast::tcp_stream& stream,
                                                             const http_request& req,
                                                             protocol::message msg,
                                                             request_context rec);
    // A 2025-11-25 client's resources/(un)subscribe at a 2026-07-28 upstream, which has no
    // such method: gate holds the URI in its own listen there and records the client.
    boost::asio::awaitable<boost::json::object>
    subscribe_at_modern_upstream(const std::string& method, const boost::json::value& id,
                                 const route& target, request_context& rec);
    // A subscription the upstream accepted (or dropped), for the fan-out of its updates.
    void record(const request_context& rec, const std::string& uri, bool subscribed);

private:
    // Holds `uri` at `owner` for `holder`; one it did not hold yet is told to the keeper.
    boost::asio::awaitable<std::optional<upstream_failure>>
    hold(const std::string& holder, const std::shared_ptr<upstream_client>& owner,
         const std::string& uri);
    // Whether the decision hook, asked before calls, lets the listen hear of `uri` (the
    // upstream's `upstream_uri`), as it would decide the client's resources/subscribe of it:
    // true when none is asked.
    boost::asio::awaitable<bool> hook_lets_listen(request_context& rec, const route& target,
                                                  const std::string& uri,
                                                  const std::string& upstream_uri);
    // What gate honours of the filter a listen asked for.
    boost::asio::awaitable<protocol::subscription_filter>
    honoured_filter(const protocol::subscription_filter& asked, const std::string& key,
                    const boost::json::value& id, request_context& rec);
    // The tasks extension's part of a listen: each task the caller may ask after, held at its
    // 2026-07-28 owner while the listen lasts.
    struct task_news {
        std::set<std::string> honoured;
        std::map<std::string, std::string> owners; // task id -> upstream id
        std::vector<std::pair<std::weak_ptr<upstream_client>, std::string>> held;
        void release() const;
    };
    boost::asio::awaitable<task_news> hold_task_news(const std::set<std::string>& asked,
                                                     request_context& rec);

    listen_hub& listens_;
    subscription_holds& holds_;
    call_routes& routes_;
    task_methods& tasks_;
    listen_services& services_;
};

} // namespace gate::transport
