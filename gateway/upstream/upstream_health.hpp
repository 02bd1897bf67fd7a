// Active health of one upstream's replicas (upstream_probes.cpp): the probe rounds its actor
// asks for (upstreams[].healthCheck.intervalMs), each endpoint's place in the rotation as
// /health and /metrics show it, and the handshake sent with no credential that `GET /health`
// and `gate check` use to try an upstream that takes each caller's credential.
//
// Threading: the io thread, like the client that owns it; only the probe round's trigger is
// called on the actor's thread, and it touches nothing here before posting to the io thread.
#pragma once

#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_sessions.hpp"
#include "gateway/upstream/upstream_state.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::gateway {

// What an upstream answered a handshake sent without any credential: `gate check`'s try of
// an upstream that takes each caller's credential, which it has none of.
struct bare_handshake {
    int status = 0;
    std::string challenge; // with a 401 or 403: its WWW-Authenticate ("" when none came)
    std::optional<boost::json::object> result; // the handshake's result, when it answered one
};

class upstream_health {
public:
    upstream_health(gateway::upstream_state& state, gateway::upstream_guards& guards,
                    gateway::upstream_exchange& exchange, gateway::upstream_sessions& sessions)
        : state_(state), guards_(guards), exchange_(exchange), sessions_(sessions) {}
    upstream_health(const upstream_health&) = delete;
    upstream_health& operator=(const upstream_health&) = delete;

    // With healthCheck.intervalMs: probes every endpoint on that interval until stop().
    // Idempotent (a reload that keeps the upstream starts it again).
    void start();
    // No more rounds (the client closed).
    void stop();
    // The handshake a health probe sends an upstream that takes each caller's credential
    // (with none) at endpoint `endpoint`, within `budget`: what it answered (the session it
    // opened ended at once), or why nothing did (refused, unresolvable, TLS, a timeout).
    boost::asio::awaitable<std::variant<bare_handshake, gateway::upstream_failure>>
    handshake_without_credential(std::chrono::milliseconds budget, std::size_t endpoint = 0);

    struct endpoint_health {
        std::string url;
        bool in_rotation;
    };
    // Each URL and whether it is in rotation, as the guard board last published it.
    std::vector<endpoint_health> endpoints() const;

private:
    boost::asio::awaitable<void> probe_round();
    // Why the endpoint failed a full MCP connect probe; nullopt when it passed.
    boost::asio::awaitable<std::optional<std::string>>
    probe_endpoint(gateway::upstream_endpoint& ep);
    // A probe's handshake at `ep` within `budget`: the answer, or why none.
    boost::asio::awaitable<std::variant<gateway::http_answer, gateway::upstream_failure>>
    probe_handshake(gateway::upstream_endpoint& ep, std::chrono::milliseconds budget);

    gateway::upstream_state& state_;
    gateway::upstream_guards& guards_;
    gateway::upstream_exchange& exchange_;
    gateway::upstream_sessions& sessions_;
    bool probing_ = false; // the probe round is registered on the board
};

} // namespace gate::gateway
