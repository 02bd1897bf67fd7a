#include "gateway/entry/entry_services.hpp"

#include "gateway/entry/gateway_impl.hpp"
#include "gateway/pipeline/entry_steps.hpp"

namespace gate::transport {

namespace {

class recording_tap final : public pipeline::message_tap {
public:
    explicit recording_tap(gateway::impl& g) : g_(g) {}
    void hear(const http_request& req, request_context& ctx) override { g_.hear(req, ctx); }

private:
    gateway::impl& g_;
};

class downstream_sessions final : public pipeline::session_directory {
public:
    explicit downstream_sessions(gateway::impl& g) : g_(g) {}
    std::optional<bool> known_now(const std::string& id, const caller_ref& caller) override {
        return g_.in_fleet.known_session_now(id, caller);
    }
    boost::asio::awaitable<bool> known(const std::string& id, const caller_ref& caller,
                                       const boost::asio::ip::address& peer) override {
        return g_.in_fleet.known_session(id, caller, peer);
    }
    std::optional<session_call> use(const std::string& id) override {
        if (!g_.sessions.touch(id, std::chrono::steady_clock::now()))
            return std::nullopt;
        return g_.sessions.call_on(id);
    }

private:
    gateway::impl& g_;
};

} // namespace

pipeline::entry_steps make_entry_steps(gateway::impl& g) {
    // The tap is the program's for the gateway's life: without one, no message is heard.
    return {pipeline::make_read(g.parts.tap ? std::make_unique<recording_tap>(g) : nullptr),
            pipeline::make_trace(),
            pipeline::make_session(std::make_unique<downstream_sessions>(g)),
            pipeline::make_envelope()};
}

} // namespace gate::transport
