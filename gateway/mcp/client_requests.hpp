// What gate puts to clients and waits on: the requests upstreams send clients (matched with the
// client's answer by the id gate minted, shared with the fleet so any instance can take the
// answer), the input requests put on a call's stream, and the 2026-07-28 calls parked for
// their retry. One counter mints every id, so none repeats among them.
#pragma once

#include "gateway/mcp/call_streams.hpp"
#include "gateway/mcp/client_traffic.hpp"
#include "gateway/mcp/fleet_sessions.hpp"
#include "gateway/mcp/parked_inputs.hpp"
#include "gateway/mcp/server_request_table.hpp"
#include "gateway/mcp/upstream_calls.hpp"
#include "gateway/mcp/upstream_traffic.hpp"

#include <cstdint>

namespace gate::gateway {

class client_requests final : public client_traffic_services,
                              public call_stream_services,
                              public server_request_ledger,
                              public client_input {
public:
    explicit client_requests(fleet_sessions& fleet) : fleet_(fleet) {}
    client_requests(const client_requests&) = delete;
    client_requests& operator=(const client_requests&) = delete;

    // Upstream requests the clients have not answered.
    server_request_table& server_requests() { return server_requests_; }
    // Input requests put to clients awaiting their answers, and 2026-07-28 clients' calls
    // parked until their retry (input_required).
    parked_inputs& inputs() { return inputs_; }

private:
    bool answer_input(const std::string& session, const protocol::message& msg,
                      std::string_view body) override {
        return inputs_.answer(session, msg, body);
    }
    std::optional<server_request_target> take_server_request(const std::string& session,
                                                             const std::string& minted) override {
        return server_requests_.take(session, minted);
    }
    boost::asio::awaitable<std::optional<transport::http_reply>>
    answer_for_fleet(const std::string& session, const protocol::message& msg, request_context& ctx,
                     std::string_view body) override {
        return fleet_.answer_for_fleet(session, msg, ctx, body);
    }
    void answered_here(const std::string& session, const std::string& minted) override {
        fleet_.answered_here(session, minted);
    }
    parked_fleet parked_calls() override;
    std::string mint_request_id() override;
    void record_server_request(const std::string& session, const std::string& minted,
                               const std::string& upstream,
                               boost::json::value upstream_id) override;
    boost::asio::awaitable<std::optional<protocol::sourced_object>>
    ask_client_input(request_context& rec, protocol::sourced_object request) override;

    fleet_sessions& fleet_;
    std::uint64_t minted_ = 0;
    server_request_table server_requests_;
    parked_inputs inputs_;
};

} // namespace gate::gateway
