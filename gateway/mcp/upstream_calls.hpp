// One call at one upstream, as the proxy stage and the MCP methods make it: on the client's
// bridged session (an upstream that takes the caller's own credential gets the caller, and a
// request with no session of its own rides its principal's bridge: the shared root session
// never carries one caller's credential), traced, counted per upstream, and told to the bridge
// keeper while the client may cancel it.
#pragma once

#include "gateway/mcp/keeper_batch.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/upstream/upstream_observer.hpp"
#include "protocol/client_profile.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gate::transport {

// What an upstream call asks of the gateway (answered by gateway/entry/mcp_method_services).
class upstream_call_services {
public:
    // The bridge keeper: whether one runs; a call the client may cancel, sent and over; a
    // bridged session used (idle ones are retired).
    virtual bool keeps_bridges() = 0;
    virtual void call_sent(keeper_batch::open_call& open, const std::string& session,
                           const std::string& client_id, const std::string& upstream,
                           std::int64_t upstream_id) = 0;
    virtual void call_over(keeper_batch::open_call& open) = 0;
    virtual void used(const std::string& bridge, const std::string& upstream) = 0;
    // The capabilities the client of `session` declared.
    virtual boost::json::object capabilities(const std::string& session) = 0;
    // A call's outcome in the metrics of the upstream (its id).
    virtual void count(const std::string& upstream, std::string_view outcome, double seconds) = 0;
    // Whether upstream `upstream` may send `request` to the client of `who`
    // (gateway/mcp/upstream_traffic.hpp).
    virtual bool admit_server_request(const federation_view& view, std::size_t upstream,
                                      const caller_ref& who, const boost::json::object& request,
                                      const std::optional<std::string>& bridge) = 0;
    // The decision hook on upstreams' requests to clients (gateway/mcp/upstream_traffic.hpp):
    // whether it is asked about `request`, asking it, and asking it in the background before
    // a message from a stream is delivered.
    virtual bool hook_asks(const federation_view& view, const boost::json::object& request,
                           bool embedded) = 0;
    virtual boost::asio::awaitable<bool> hook_admits(std::shared_ptr<const federation_view> view,
                                                     std::size_t upstream, caller_ref who,
                                                     boost::json::object request,
                                                     std::optional<std::string> bridge) = 0;
    virtual void judge_then_deliver(std::shared_ptr<const federation_view> view,
                                    std::size_t upstream, caller_ref who, upstream_message m,
                                    std::string bridge,
                                    std::function<bool(upstream_message&)> deliver) = 0;
    // Asks the client of `ctx` one embedded input request on its call's stream.
    virtual boost::asio::awaitable<std::optional<protocol::sourced_object>>
    ask_client_input(request_context& ctx, protocol::sourced_object request) = 0;

protected:
    ~upstream_call_services() = default;
};

class upstream_calls {
public:
    using ticket = std::shared_ptr<upstream_client::guard_ticket>;
    explicit upstream_calls(upstream_call_services& services) : services_(services) {}

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
    protocol::client_profile profile_of(request_context& rec);

private:
    upstream_call_services& services_;
};

} // namespace gate::transport
