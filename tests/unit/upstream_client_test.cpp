// upstream_client, the facade the gateway uses, composed of the units: a call
// its guards refuse never reaches the upstream; gate answers what the upstream
// asks on a root session (there is no client behind it) and passes the rest to
// the gateway's observer; a retired client closes once its calls in flight end;
// the subscriptions gate holds are made again on the new root session after the
// upstream restarted.
#include "gateway/upstream/upstream_client.hpp"
#include "tests/support/guard_views.hpp"
#include "tests/unit/upstream_rig.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using gateway::call_context;
using gateway::upstream_client;
using gateway::upstream_failure;
using gateway::upstream_message;

// The gateway's side: keeps what it hears through a pointer the test holds.
struct forwarding_observer : gateway::upstream_observer {
    explicit forwarding_observer(fake_observer& to) : to_(to) {}
    void message(const std::string& bridge, upstream_message m) override {
        to_.message(bridge, std::move(m));
    }
    fake_observer& to_;
};

struct client_test : ::testing::Test {
    asio::io_context io;
    loopback_upstream upstream{io};
    fake_observer gateway;
    std::shared_ptr<upstream_client> client;

    void make(config::upstream cfg) {
        client = upstream_client::make(io.get_executor(), std::move(cfg));
        client->observe(std::make_unique<forwarding_observer>(gateway));
    }
    void make() { make(upstream_at(upstream.url())); }
    gateway::upstream_reply call(const call_context& ctx = {}) {
        return run(io, client->sender().request("tools/call", json::object{{"name", "echo"}}, ctx));
    }
    void TearDown() override {
        if (client)
            client->close();
        settle(io);
    }
};

TEST_F(client_test, a_call_its_guards_refuse_never_reaches_the_upstream) {
    make();
    auto v = actors::guard_board::initial_view(client->config());
    v.breaker = actors::circuit_breaker::state::open;
    v.reopens_at = std::chrono::steady_clock::now() + 60s;
    test::publish_view(*client->guards().board(), v);
    auto r = call();
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).what, upstream_failure::kind::circuit_open);
    EXPECT_EQ(upstream.connections, 0);
    EXPECT_TRUE(upstream.requests.empty());
    auto list = run(io, client->lists().fetch_list("tools/list", "tools", {}));
    EXPECT_TRUE(std::holds_alternative<upstream_failure>(list));
    EXPECT_TRUE(upstream.requests.empty());
}

TEST_F(client_test, gate_answers_what_the_upstream_asks_on_a_root_session) {
    make();
    upstream.on = [&](const seen& r) {
        if (r.verb == "GET" && r.session == "s1") {
            reply a;
            a.events = std::vector<std::string>{
                R"({"jsonrpc":"2.0","id":"r1","method":"roots/list"})",
                R"({"jsonrpc":"2.0","id":"r2","method":"sampling/createMessage","params":{}})",
                R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}})"};
            return a;
        }
        return upstream.mcp(r);
    };
    EXPECT_TRUE(std::holds_alternative<upstream_message>(call()));
    auto answered = [&](std::string_view id) -> const seen* {
        for (const auto& r : upstream.requests)
            if (r.method.empty() && r.verb == "POST" && r.id == json::string(id))
                return &r;
        return nullptr;
    };
    ASSERT_TRUE(run_until(io, [&] { return answered("r1") && answered("r2"); }));
    // No client stands behind the session: no made-up empty roots, an error the server can
    // tell from "no roots".
    auto roots = json::parse(answered("r1")->body).as_object();
    EXPECT_FALSE(roots.contains("result"));
    EXPECT_EQ(roots.at("error").at("code"), -32601);
    EXPECT_EQ(roots.at("error").at("message"),
              "gate's shared session has no client to ask; roots/list is bridged only during a "
              "client's call");
    EXPECT_EQ(json::parse(answered("r2")->body).at("error").at("code"), -32601);
    EXPECT_EQ(json::parse(answered("r2")->body).at("error").at("message"),
              "gate's shared session has no client to ask; sampling/createMessage is bridged "
              "only during a client's call");
    EXPECT_EQ(answered("r1")->session, "s1");
    // The notification is the gateway's to hear; the requests were not.
    ASSERT_TRUE(run_until(io, [&] { return !gateway.heard.empty(); }));
    ASSERT_EQ(gateway.heard.size(), 1u);
    EXPECT_EQ(gateway.heard[0].first, "");
    EXPECT_NE(gateway.heard[0].second.find("notifications/message"), std::string::npos);
}

TEST_F(client_test, a_retired_client_closes_once_its_calls_in_flight_end) {
    auto cfg = upstream_at(upstream.url());
    cfg.timeouts.request_ms = 300;
    make(cfg);
    call_context bridged;
    bridged.bridge = "b1";
    EXPECT_TRUE(std::holds_alternative<upstream_message>(call(bridged)));
    auto deletes = [&] {
        return std::count_if(upstream.requests.begin(), upstream.requests.end(),
                             [](const seen& r) { return r.verb == "DELETE"; });
    };
    upstream.on = [&](const seen& r) {
        if (r.method == "tools/call") {
            reply a;
            a.hang = true; // answers within no call's budget
            return a;
        }
        return upstream.mcp(r);
    };
    std::optional<gateway::upstream_reply> slow;
    asio::co_spawn(io,
                   client->sender().request("tools/call", json::object{{"name", "slow"}}, bridged),
                   [&](std::exception_ptr, gateway::upstream_reply r) { slow = std::move(r); });
    ASSERT_TRUE(run_until(io, [&] { return client->sender().calls_in_flight() == 1; }));
    client->retire(10s);
    settle(io);
    EXPECT_EQ(deletes(), 0); // the call in flight finishes first
    EXPECT_TRUE(client->sessions().has_bridge("b1"));
    ASSERT_TRUE(run_until(io, [&] { return slow.has_value(); }));
    EXPECT_TRUE(run_until(io, [&] { return deletes() == 1; })); // then it closed: b1 ended
    EXPECT_FALSE(client->sessions().has_bridge("b1"));
}

TEST_F(client_test, subscriptions_held_are_made_again_after_the_upstream_restarts) {
    make();
    auto held = run(io, client->streams().hold_subscription("file:///notes"));
    EXPECT_FALSE(held);
    ASSERT_EQ(upstream.count("resources/subscribe"), 1u);
    EXPECT_EQ(upstream.requests.back().session, "s1");
    upstream.on = [&](const seen& r) {
        if (r.verb == "POST" && r.session == "s1")
            return reply::status_only(404); // restarted: s1 is gone
        return upstream.mcp(r);
    };
    EXPECT_TRUE(std::holds_alternative<upstream_message>(call()));
    ASSERT_TRUE(run_until(io, [&] { return upstream.count("resources/subscribe") == 2; }));
    auto again = std::find_if(upstream.requests.rbegin(), upstream.requests.rend(),
                              [](const seen& r) { return r.method == "resources/subscribe"; });
    EXPECT_EQ(again->session, "s2");
    EXPECT_NE(again->body.find("file:///notes"), std::string::npos);
}

} // namespace
} // namespace gate::test
