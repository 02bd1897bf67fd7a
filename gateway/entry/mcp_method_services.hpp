// What the gateway's MCP method groups (gateway/mcp/task_methods, list_methods) ask of the
// gateway's parts: the actors, the fleet's store, the budgets, the upstream clients. Each
// group sees only its own interface, never gateway::impl.
#pragma once

#include "gateway/entry/gateway.hpp"
#include "gateway/mcp/call_routes.hpp"
#include "gateway/mcp/call_streams.hpp"
#include "gateway/mcp/client_traffic.hpp"
#include "gateway/mcp/list_methods.hpp"
#include "gateway/mcp/listen_methods.hpp"
#include "gateway/mcp/session_admission.hpp"
#include "gateway/mcp/session_streams.hpp"
#include "gateway/mcp/task_methods.hpp"
#include "gateway/mcp/upstream_calls.hpp"
#include "gateway/mcp/upstream_traffic.hpp"

namespace gate::transport {

class mcp_method_services final : public task_services,
                                  public list_services,
                                  public route_resolver,
                                  public client_traffic_services,
                                  public upstream_traffic_services,
                                  public upstream_call_services,
                                  public session_admission_services,
                                  public listen_services,
                                  public call_stream_services,
                                  public session_stream_services {
public:
    explicit mcp_method_services(gateway::impl& g) : g_(g) {}

    // The task methods.
    boost::asio::awaitable<std::optional<task_owner>> find(const std::string& task_id,
                                                           std::uint64_t principal) override;
    void pin(const std::string& task_id, std::uint64_t principal,
             const std::string& upstream) override;
    void locate(const std::string& task_id, const std::string& upstream) override;
    boost::asio::awaitable<std::optional<std::string>>
    fleet_record(const std::string& task_id) override;
    boost::asio::awaitable<void> put_fleet_record(const std::string& task_id,
                                                  std::string record) override;
    boost::asio::awaitable<std::optional<budget_ledger::exhausted>>
    charge(const request_context& ctx, std::size_t upstream) override;
    boost::asio::awaitable<upstream_reply> call(std::size_t upstream, std::string_view method,
                                                boost::json::object params, request_context& ctx,
                                                bool client_call) override;
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_tasks(std::size_t upstream, request_context& ctx) override;
    boost::asio::awaitable<task_services::list_page>
    page(request_context& ctx, boost::json::array merged,
         std::optional<std::string> cursor) override;

    // The list methods.
    boost::asio::awaitable<std::optional<list_plan>> plan(protocol::list_kind kind,
                                                          request_context& ctx) override;
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch(protocol::list_kind kind, protocol::client_profile profile, std::size_t upstream,
          std::string traceparent, ticket admitted, request_context& ctx,
          std::vector<std::string>& written) override;
    void count(const std::string& upstream, std::string_view outcome, double seconds) override;
    void tool_dropped(const std::string& upstream, std::string_view reason) override;
    void share(protocol::list_kind kind, protocol::client_profile profile,
               const upstream_client& upstream, const boost::json::array& items,
               const std::vector<std::string>& written) override;
    boost::asio::awaitable<list_services::list_page>
    complete(protocol::list_kind kind, const list_plan& plan, std::vector<fetched_list> fetched,
             std::optional<std::string> cursor, request_context& ctx) override;

    // Routing.
    boost::asio::awaitable<std::optional<routed>>
    resolve(request_context& ctx, const std::string& method,
            const boost::json::object& params) override;
    protocol::client_profile profile_of(request_context& ctx) override;

    // The client's traffic.
    bool answer_input(const std::string& session, const protocol::message& msg,
                      std::string_view body) override;
    std::optional<server_request_target> take_server_request(const std::string& session,
                                                             const std::string& minted) override;
    boost::asio::awaitable<std::optional<http_reply>>
    answer_for_fleet(const std::string& session, const protocol::message& msg, request_context& ctx,
                     std::string_view body) override;
    void answered_here(const std::string& session, const std::string& minted) override;
    boost::asio::awaitable<std::optional<call_target>>
    cancelled_call(const std::string& session, const std::string& request_id) override;
    boost::json::object capabilities(const std::string& session) override;
    void used(const std::string& session, const std::string& upstream) override;

    // Upstream traffic.
    std::shared_ptr<const federation_view> current_view() override;
    void list_changed(const upstream_client& from, std::string method) override;
    boost::asio::awaitable<std::optional<std::vector<std::string>>>
    subscribers(const std::string& upstream, const std::string& uri,
                std::optional<std::string> origin) override;
    bool keeps_subscriptions() override;
    void task_news(const std::string& upstream, const upstream_message& m) override;
    bool deliver_to_listen(const std::string& holder, const upstream_message& m) override;
    bool session_open(const std::string& session) override;
    caller_ref principal_of(const std::string& session) override;
    void deliver(const std::string& session, const std::string& text) override;
    std::string mint_request_id() override;
    void record_server_request(const std::string& session, const std::string& minted,
                               const std::string& upstream,
                               boost::json::value upstream_id) override;
    void audit(request_context& denied) override;
    hook_asker* decision_hook() override;

    // Upstream calls (capabilities, used and count: above).
    bool keeps_bridges() override;
    void call_sent(keeper_batch::open_call& open, const std::string& session,
                   const std::string& client_id, const std::string& upstream,
                   std::int64_t upstream_id) override;
    void call_over(keeper_batch::open_call& open) override;
    bool admit_server_request(const federation_view& view, std::size_t upstream,
                              const caller_ref& who, const boost::json::object& request,
                              const std::optional<std::string>& bridge) override;
    boost::asio::awaitable<std::optional<protocol::sourced_object>>
    ask_client_input(request_context& ctx, protocol::sourced_object request) override;
    bool hook_asks(const federation_view& view, const boost::json::object& request,
                   bool embedded) override;
    boost::asio::awaitable<bool> hook_admits(std::shared_ptr<const federation_view> view,
                                             std::size_t upstream, caller_ref who,
                                             boost::json::object request,
                                             std::optional<std::string> bridge) override;
    void judge_then_deliver(std::shared_ptr<const federation_view> view, std::size_t upstream,
                            caller_ref who, upstream_message m, std::string bridge,
                            std::function<bool(upstream_message&)> deliver) override;

    // Session admission (end_everywhere: below, with the streams).
    void count_eviction(std::string_view reason) override;
    void count_refusal(std::string_view reason) override;

    // Listens and held subscriptions (audit: above).
    void subscription_changed(const std::string& holder, const std::string& upstream,
                              const std::string& uri, bool subscribed) override;

    // Calls' streams.
    std::string mint_input_id() override;
    parked_fleet parked_calls() override;

    // A session's streams.
    boost::asio::awaitable<bool> known_session(const std::string& session, const caller_ref& caller,
                                               const boost::asio::ip::address& peer) override;
    void listening(const std::string& session, bool open) override;
    bool stopping() const override;
    void end_everywhere(const std::string& session) override;

private:
    gateway::impl& g_;
};

} // namespace gate::transport
