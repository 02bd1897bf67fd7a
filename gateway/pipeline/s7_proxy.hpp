// Stage 7, proxy (s7_proxy.cpp), and what it asks of the gateway: the call sent to its
// upstream, a list's stale lists fetched, and the methods gate answers by asking upstreams
// itself (initialize, logging/setLevel, the task methods, a subscription at a 2026-07-28
// upstream).
#pragma once

#include "actors/federation/router_messages.hpp"
#include "gateway/pipeline/stage.hpp"
#include "protocol/list_kind.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gate::transport::pipeline {

class proxy_services {
public:
    using ticket = std::shared_ptr<upstream_client::guard_ticket>;

    // A routed call on the client's bridged session at `upstream`, with the admission stage 6
    // granted; the upstream's answer or why there is none.
    virtual boost::asio::awaitable<upstream_reply> call(std::size_t upstream,
                                                        std::string_view method,
                                                        boost::json::object params,
                                                        request_context& ctx, ticket admitted) = 0;
    // The planned upstreams' lists, fetched concurrently; `tickets`: one admission per
    // planned upstream (null: refused, left out).
    virtual boost::asio::awaitable<std::vector<fetched_list>>
    fetch_lists(protocol::list_kind kind, const list_plan& plan, std::vector<ticket> tickets,
                request_context& ctx) = 0;
    // initialize answered from the federation (in passthrough, by the upstream); `version`:
    // the revision agreed with the client.
    virtual boost::asio::awaitable<boost::json::object>
    initialize(const boost::json::value& id, const boost::json::object& params,
               std::string& version, request_context& ctx) = 0;
    // logging/setLevel at every upstream session of the client.
    virtual boost::asio::awaitable<boost::json::object>
    set_log_level(const std::string& session, const boost::json::value& id,
                  const boost::json::object& params, request_context& ctx) = 0;
    // A task method at the task's owner (tasks/list merged from every upstream).
    virtual boost::asio::awaitable<boost::json::object> task_call(const boost::json::value& id,
                                                                  const std::string& method,
                                                                  boost::json::object params,
                                                                  request_context& ctx) = 0;
    // resources/(un)subscribe at a 2026-07-28 upstream, which has no such method: gate holds
    // the URI in its own listen there.
    virtual boost::asio::awaitable<boost::json::object>
    subscribe_at_modern_upstream(const std::string& method, const boost::json::value& id,
                                 const route& target, request_context& ctx) = 0;

protected:
    ~proxy_services() = default;
};

std::unique_ptr<stage> make_proxy(proxy_services& services);

} // namespace gate::transport::pipeline
