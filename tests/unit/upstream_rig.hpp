// The units of one upstream client wired as upstream_client wires them, with fakes where the
// client and the gateway would be: an observer that keeps what it hears, hooks that keep the
// root sessions published. For the units' tests (tests/unit/upstream_*_test.cpp).
#pragma once

#include "gateway/upstream/upstream_credentials.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_recording.hpp"
#include "gateway/upstream/upstream_requests.hpp"
#include "gateway/upstream/upstream_sessions.hpp"
#include "gateway/upstream/upstream_state.hpp"
#include "tests/unit/upstream_loopback.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gate::test {

// Keeps what it hears; answers input requests with `answer` when `asks` is set.
struct fake_observer : gateway::upstream_observer {
    std::vector<std::pair<std::string, std::string>> heard; // bridge, the message's text
    std::vector<std::int64_t> sent_ids;
    bool asks = false;
    std::vector<protocol::sourced_object> asked;
    std::optional<protocol::sourced_object> answer;

    void message(const std::string& bridge, gateway::upstream_message m) override {
        heard.emplace_back(bridge, m.raw());
    }
    void sent(std::int64_t id) override { sent_ids.push_back(id); }
    bool answers_input() const override { return asks; }
    boost::asio::awaitable<std::optional<protocol::sourced_object>>
    ask_client(protocol::sourced_object request) override {
        asked.push_back(std::move(request));
        co_return answer;
    }
};

struct fake_hooks : gateway::session_hooks {
    std::vector<std::uint64_t> published;
    void root_published(std::uint64_t generation) override { published.push_back(generation); }
};

// What the units hold; the rig is its own owner (what background work keeps alive).
struct upstream_units {
    upstream_units(boost::asio::io_context& io, config::upstream cfg)
        : state(io.get_executor(), std::move(cfg)), guards(state.cfg),
          credentials(state.ex, state.cfg), recording(state.cfg.id),
          exchange(state, credentials, guards, session_wide),
          sessions(state, exchange, guards, session_wide, hooks),
          requests(state, sessions, exchange, guards, recording) {}

    fake_observer session_wide;
    fake_hooks hooks;
    gateway::upstream_state state;
    gateway::upstream_guards guards;
    gateway::upstream_credentials credentials;
    gateway::upstream_recording recording;
    gateway::upstream_exchange exchange;
    gateway::upstream_sessions sessions;
    gateway::upstream_requests requests;
};

inline std::shared_ptr<upstream_units> make_units(boost::asio::io_context& io,
                                                  config::upstream cfg) {
    auto units = std::make_shared<upstream_units>(io, std::move(cfg));
    units->state.owner = units;
    return units;
}

// A test's io_context, the scripted upstream on it and the units in front of that upstream
// (made by make()), with an observer for a call of the test's own.
struct units_fixture : ::testing::Test {
    boost::asio::io_context io;
    loopback_upstream upstream{io};
    std::shared_ptr<upstream_units> units;
    fake_observer call_observer;

    upstream_units& make(config::upstream cfg) {
        units = make_units(io, std::move(cfg));
        return *units;
    }
    upstream_units& make() { return make(upstream_at(upstream.url())); }
    // A call context whose observer is call_observer.
    gateway::call_context observed() {
        gateway::call_context ctx;
        ctx.observer = &call_observer;
        return ctx;
    }
};

// A closed-down port on 127.0.0.1: nothing listens there.
inline std::string dead_url() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    auto port = a.local_endpoint().port();
    a.close();
    return "http://127.0.0.1:" + std::to_string(port) + "/mcp";
}

} // namespace gate::test
