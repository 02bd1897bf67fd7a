// Stage 8, egress (s8_egress.cpp), and what it asks of the gateway: a list's page completed
// from what was fetched, a minted task pinned to its upstream, a subscription the upstream
// accepted recorded, and the session an accepted initialize opens.
#pragma once

#include "actors/federation/router_messages.hpp"
#include "gateway/pipeline/stage.hpp"
#include "protocol/list_kind.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gate::transport {
class hook_asker;
} // namespace gate::transport

namespace gate::transport::pipeline {

class egress_services {
public:
    // The list's answer to the client: what was fetched stored, merged, and the page the
    // client's cursor asks for cut (or the refusal).
    virtual boost::asio::awaitable<boost::json::object>
    complete_list(protocol::list_kind kind, const list_plan& plan,
                  std::vector<fetched_list> fetched, const boost::json::value& id,
                  const boost::json::object& params, request_context& ctx) = 0;
    // The task a tools/call answer minted, pinned to `upstream` for the caller before the
    // client hears of it.
    virtual boost::asio::awaitable<void> pin_task(const request_context& ctx, std::size_t upstream,
                                                  std::string task_id) = 0;
    // The icons of a call's resource links (`items`: its content), from upstream `upstream`,
    // rewritten for gate's origin as a list's are (docs/security.md, Icons).
    virtual void rewrite_icons(const request_context& ctx, std::size_t upstream,
                               boost::json::array& items) = 0;
    // A subscription the upstream accepted (or dropped), for the fan-out of its updates.
    virtual void record_subscription(const request_context& ctx, const std::string& uri,
                                     bool subscribed) = 0;
    // A new downstream session within the caller's share; nullopt: refused, the refusal on
    // `ctx`.
    virtual std::optional<std::string> open_session(request_context& ctx,
                                                    const boost::json::object& capabilities) = 0;
    // The session's record, for every instance of a fleet, written before the client hears
    // its id.
    virtual boost::asio::awaitable<void> publish_session(const std::string& id,
                                                         const std::string& protocol_version,
                                                         const boost::json::object& capabilities,
                                                         const std::string& owner) = 0;

protected:
    ~egress_services() = default;
};

// `hooks`: where policy.decisionHook is asked about results (null: never).
std::unique_ptr<stage> make_egress(egress_services& services, hook_asker* hooks);

} // namespace gate::transport::pipeline
