// What a client sends that is not a call (gateway/mcp/): its answers to the requests upstreams
// put to it, back to the upstream session that asked under the upstream's own id; its
// cancellations, to the upstream that runs the call; its roots' news, to every upstream it has
// a session with; and logging/setLevel, to all of its upstream sessions.
#pragma once

#include "actors/bridging/bridge_messages.hpp"
#include "gateway/mcp/bridge_events.hpp"
#include "gateway/mcp/client_capabilities.hpp"
#include "gateway/mcp/server_request_table.hpp"
#include "gateway/mcp/session_log_levels.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "protocol/json_rpc.hpp"
#include "transport/http/http_reply.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway {

// What the client's traffic asks of the gateway (answered by gateway/entry/
// mcp_method_services; a fake in tests/unit/client_traffic_test.cpp).
class client_traffic_services {
public:
    // An answer to an input request of a 2026-07-28 upstream, handed to the call waiting for
    // it; false when no call waits for it.
    virtual bool answer_input(const std::string& session, const protocol::message& msg,
                              std::string_view body) = 0;
    // The upstream request the client's answer `minted` (the id gate gave it) is for, taken.
    virtual std::optional<server_request_target> take_server_request(const std::string& session,
                                                                     const std::string& minted) = 0;
    // With a fleet: an answer to a request another instance recorded, delivered from here
    // (nullopt: no record of it), and one answered here, forgotten fleet-wide. Without one:
    // nullopt, nothing.
    virtual boost::asio::awaitable<std::optional<transport::http_reply>>
    answer_for_fleet(const std::string& session, const protocol::message& msg, request_context& ctx,
                     std::string_view body) = 0;
    virtual void answered_here(const std::string& session, const std::string& minted) = 0;

protected:
    ~client_traffic_services() = default;
};

// Stage 7 sets log levels through it (pipeline::log_level_services).
class client_traffic final : public pipeline::log_level_services {
public:
    client_traffic(client_traffic_services& services, bridge_events& bridges,
                   client_capabilities& clients)
        : services_(services), bridges_(bridges), clients_(clients) {}

    // The client answered an upstream request, or sent a notification: where it goes, written
    // as the client wrote it (`body`, the POST's). 202, or the refusal of an answer nobody
    // asked for.
    boost::asio::awaitable<transport::http_reply> from_client(const std::string& session,
                                                              const protocol::message& msg,
                                                              request_context& rec,
                                                              std::string_view body);
    // logging/setLevel: every upstream session of the client gets the level, those open now at
    // once, those opened later at their handshake, those of a client made later when it is
    // (tell_levels).
    boost::asio::awaitable<boost::json::object> set_log_level(const std::string& session,
                                                              const boost::json::value& id,
                                                              const boost::json::object& params,
                                                              request_context& rec) override;

    // The levels sessions on this thread asked for, kept at `client`'s bridged sessions for
    // them: a client this thread made after they asked.
    void tell_levels(upstream_client& client);
    session_log_levels& levels() { return levels_; }

private:
    boost::asio::awaitable<transport::http_reply> answer_upstream(const std::string& session,
                                                                  const protocol::message& msg,
                                                                  request_context& rec,
                                                                  std::string_view body);
    boost::asio::awaitable<void>
    cancel_upstream(const std::string& session, const protocol::message& msg, request_context& rec);

    client_traffic_services& services_;
    bridge_events& bridges_;
    client_capabilities& clients_;
    session_log_levels levels_;
};

} // namespace gate::gateway
