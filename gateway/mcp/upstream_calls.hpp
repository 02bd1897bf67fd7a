// One call at one upstream, as the proxy stage and the MCP methods make it: on the client's
// bridged session (an upstream that takes the caller's own credential gets the caller, and a
// request with no session of its own rides its principal's bridge: the shared root session
// never carries one caller's credential), traced, counted per upstream, and told to the bridge
// keeper while the client may cancel it.
#pragma once

#include "gateway/mcp/account_logins.hpp"
#include "gateway/mcp/bridge_events.hpp"
#include "gateway/mcp/client_capabilities.hpp"
#include "gateway/mcp/client_profiles.hpp"
#include "gateway/mcp/composed_instructions.hpp"
#include "gateway/mcp/keeper_batch.hpp"
#include "gateway/mcp/list_methods.hpp"
#include "gateway/mcp/server_request_judge.hpp"
#include "gateway/mcp/task_methods.hpp"
#include "gateway/operations/method_counts.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/request_tracing.hpp"
#include "gateway/upstream/upstream_observer.hpp"
#include "protocol/client_profile.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway {

// What an upstream call asks of the gateway (answered by gateway/entry/mcp_method_services).
// An input request put to the client on the call's stream, and its answer (nullopt: none in
// time, or no stream to ask on): client_requests.
class client_input {
public:
    virtual boost::asio::awaitable<std::optional<protocol::sourced_object>>
    ask_client_input(request_context& ctx, protocol::sourced_object request) = 0;

protected:
    ~client_input() = default;
};

// Stage 7 sends a routed call and answers initialize through it (pipeline::call_stage_services).
class upstream_calls final : public pipeline::call_stage_services,
                             public task_upstreams,
                             public list_fetcher,
                             public client_profiles {
public:
    using ticket = pipeline::call_ticket;
    upstream_calls(server_request_judge& judge, bridge_events& bridges, upstream_counts& counts,
                   client_capabilities& clients, client_input& input, account_logins& logins)
        : judge_(judge), bridges_(bridges), counts_(counts), clients_(clients), input_(input),
          logins_(logins) {}

    // The call's observer (gateway/upstream/upstream_observer.hpp), kept by the caller for
    // the call's length; the context points to it, so a call makes no hook of its own.
    struct bridged_call final : upstream_observer {
        bridged_call() = default;
        bridged_call(const bridged_call&) = delete;
        bridged_call& operator=(const bridged_call&) = delete;
        ~bridged_call() override {
            if (alive)
                *alive = false;
        }
        // Made when a message waits for the decision hook: whether the call still runs when
        // the hook answers.
        std::shared_ptr<bool> alive;
        upstream_calls* calls = nullptr;
        request_context* rec = nullptr;
        std::size_t upstream = 0;
        std::string bridge;
        boost::json::object capabilities; // the client's, for a new bridged session
        keeper_batch::open_call open;     // while it runs, for the bridge keeper
        bool tells_keeper = false;        // the keeper hears that it started (sent)
        bool asks_input = false;          // a 2026-07-28 upstream's input goes to the client
        // The upstream's messages on the call's stream go to the client, as the policy allows.
        void message(const std::string& bridge, upstream_message m) override;
        void sent(std::int64_t upstream_id) override;
        bool answers_input() const override { return asks_input; }
        boost::asio::awaitable<std::optional<protocol::sourced_object>>
        ask_client(protocol::sourced_object request) override;
    };

    // Stage 7: a routed call of the client's (call, with the admission stage 6 granted), its
    // reply kept in rec for egress.
    boost::asio::awaitable<pipeline::verdict> call_routed(request_context& rec) override;
    // The federation's instructions as initialize answers them on this thread.
    composed_instructions& instructions() { return instructions_; }
    // Stage 7: initialize answered from the federation (gateway/mcp/initialize.hpp).
    boost::asio::awaitable<boost::json::object> initialize(const boost::json::value& id,
                                                           const boost::json::object& params,
                                                           std::string& version,
                                                           request_context& rec) override;
    // One call: `client_call` false for gate's own requests on the client's behalf (a task
    // probe), which the client cannot cancel and the keeper does not count; admitted by
    // `admitted` (stage 6's ticket), or by the client itself. Failures are the reply's.
    boost::asio::awaitable<upstream_reply> call(std::size_t upstream, std::string_view method,
                                                boost::json::object params, request_context& rec,
                                                bool client_call = true, ticket admitted = nullptr);
    // The context of a call on the client's bridged session at one upstream (`call` observes
    // it).
    call_context bridged_context(request_context& rec, std::size_t upstream, bridged_call& call);
    // Attaches the caller to `ctx` for a per-caller upstream, with the principal's own bridge
    // when the call has no session's bridge.
    void bind_caller(call_context& ctx, request_context& rec, std::size_t upstream);
    // The capability profile lists are asked and cached for (protocol/client_profile.hpp).
    protocol::client_profile profile_of(request_context& rec) override;
    // A task method's call (task_upstreams).
    boost::asio::awaitable<upstream_reply>
    call_upstream(std::size_t upstream, std::string_view method, boost::json::object params,
                  request_context& rec, bool client_call) override {
        return call(upstream, method, std::move(params), rec, client_call);
    }
    // The caller's tasks/list at `upstream` on its bridged session (not a call it can cancel).
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_tasks(std::size_t upstream, request_context& rec) override;
    // One upstream's list (list_fetcher): per caller on the caller's bridged session with its
    // credential, else on the root session of the client's profile.
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch(protocol::list_kind kind, protocol::client_profile profile, std::size_t upstream,
          std::string traceparent, ticket admitted, request_context& rec,
          std::vector<std::string>& written) override;

private:
    // What one call holds while it runs, in the frame of the coroutine that sends it.
    struct running_call {
        running_call() = default;
        running_call(const running_call&) = delete;
        running_call& operator=(const running_call&) = delete;
        // A call whose request threw still ends on the way out: over for the keeper, counted,
        // its span closed (as failed). A frame destroyed unfinished with no exception in
        // flight is the io_context torn down at exit, after the components: nothing to tell.
        ~running_call() {
            if (calls && std::uncaught_exceptions() > 0)
                calls->end(*this, nullptr);
        }
        std::chrono::steady_clock::time_point start;
        bridged_call call;
        call_context ctx;
        upstream_span span;
        upstream_client* client = nullptr;
        upstream_calls* calls = nullptr; // set while the call runs, for its end
        request_context* rec = nullptr;
    };
    // Its start (counted, its context and span made) and its end (counted, the span closed),
    // once: `reply` null when the request threw.
    void begin(running_call& r, std::size_t upstream, request_context& rec, bool client_call);
    void end(running_call& r, const upstream_reply* reply);
    // The call through `admitted` (null: the client admits it itself).
    static boost::asio::awaitable<upstream_reply> send(running_call& r, std::string_view method,
                                                       boost::json::object params, ticket admitted);

    server_request_judge& judge_;
    bridge_events& bridges_;
    upstream_counts& counts_;
    client_capabilities& clients_;
    client_input& input_;
    account_logins& logins_;
    composed_instructions instructions_;
};

} // namespace gate::gateway
