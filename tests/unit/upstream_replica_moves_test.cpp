// Where a call goes when the replica its session is open on dies, against two scripted
// replicas on 127.0.0.1: a refused connection (nothing of the request left gate) sends it once
// more on a session opened on the replica that answers; a request that may have reached the
// dead replica is never sent again; a session whose replica is out of rotation while another
// is in opens again there before its next request, and stays where it is when none is.
#include "tests/support/guard_views.hpp"
#include "tests/unit/upstream_rig.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

namespace json = boost::json;
using gateway::call_context;
using gateway::upstream_failure;
using gateway::upstream_message;
using gateway::upstream_reply;

struct replica_moves_test : units_fixture {
    loopback_upstream second{io};

    // Replicas `upstream` (index 0, where the first session opens) and `second`.
    upstream_units& replicated() {
        auto cfg = upstream_at(upstream.url());
        cfg.urls.push_back(second.url());
        return make(std::move(cfg));
    }
    upstream_reply call(const call_context& ctx = {}) {
        return run(io, units->requests.send("tools/call", json::object{{"name", "echo"}}, ctx));
    }
    // The rotation as the upstream's actor would publish it.
    void rotation(std::vector<bool> in) {
        auto v = actors::guard_board::initial_view(units->state.cfg);
        v.in_rotation = std::move(in);
        test::publish_view(*units->guards.board(), std::move(v));
    }
    static void served(const upstream_reply& r) {
        ASSERT_TRUE(std::holds_alternative<upstream_message>(r))
            << std::get<upstream_failure>(r).message;
    }
};

TEST_F(replica_moves_test, a_call_its_replica_refuses_goes_once_more_to_the_replica_that_answers) {
    replicated();
    served(call());
    ASSERT_EQ(units->sessions.root()->ep->index, 0u);
    upstream.stop(); // its pooled connection closed too: the call finds it dead, then refused
    auto r = call(observed());
    served(r);
    EXPECT_EQ(upstream.count("tools/call"), 1u) << "only the call before it died";
    EXPECT_EQ(second.count("initialize"), 1u);
    EXPECT_EQ(second.count("tools/call"), 1u);
    EXPECT_EQ(units->sessions.root()->ep->index, 1u);
    // Told of each id it went under: the one that never left, then the one that was answered.
    ASSERT_EQ(call_observer.sent_ids.size(), 2u);
    EXPECT_EQ(std::get<upstream_message>(r).body().at("id"), call_observer.sent_ids[1]);
    served(call()); // and the session stays on the live replica
    EXPECT_EQ(second.count("initialize"), 1u);
}

TEST_F(replica_moves_test, a_bridged_session_moves_with_its_client_capabilities) {
    replicated();
    call_context bridged;
    bridged.bridge = "b1";
    json::object caps{{"sampling", json::object{}}};
    bridged.client_capabilities = &caps;
    served(call(bridged));
    upstream.stop();
    served(call(bridged));
    ASSERT_EQ(second.count("initialize"), 1u);
    for (const auto& r : second.requests)
        if (r.method == "initialize")
            EXPECT_EQ(json::parse(r.body).at("params").at("capabilities"), json::value(caps));
    ASSERT_EQ(second.count("tools/call"), 1u);
    for (const auto& r : second.requests)
        if (r.method == "tools/call")
            EXPECT_EQ(r.session, "s1");
}

TEST_F(replica_moves_test,
       a_2026_07_28_session_moves_past_the_replica_that_refused_even_when_next_in_turn) {
    // A 2026-07-28 session opens without a word to its replica: only the refusal tells, and
    // the rotation may not show the ejection yet. Three sessions on three replicas put the
    // dead one next in turn.
    loopback_upstream third{io};
    auto cfg = upstream_at(upstream.url());
    cfg.urls.push_back(second.url());
    cfg.urls.push_back(third.url());
    cfg.protocol = config::protocol_mode::v2026_07_28;
    make(std::move(cfg));
    for (auto* replica : {&upstream, &second, &third})
        replica->on = [](const seen& r) {
            return reply::result(r.id, {{"content", json::array{}}});
        };
    std::vector<call_context> clients(3);
    for (std::size_t i = 0; i < clients.size(); ++i) {
        clients[i].bridge = "b" + std::to_string(i);
        served(call(clients[i]));
        ASSERT_EQ(units->sessions.find(clients[i].bridge)->ep->index, i);
    }
    upstream.stop();
    served(call(clients[0]));
    EXPECT_EQ(units->sessions.find("b0")->ep->index, 1u);
    EXPECT_EQ(second.count("tools/call"), 2u);
}

TEST_F(replica_moves_test, a_call_that_may_have_reached_the_dead_replica_is_never_sent_again) {
    replicated();
    served(call());
    // The replica dies holding the request: it read it and hung up without an answer.
    upstream.on = [](const seen& r) {
        auto hung_up = reply::status_only(500);
        hung_up.close = r.method == "tools/call";
        return hung_up;
    };
    upstream.drop_connections(); // a fresh connection, so the request surely reached it
    auto r = call();
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).what, upstream_failure::kind::connect_error);
    EXPECT_FALSE(std::get<upstream_failure>(r).unsent);
    EXPECT_EQ(upstream.count("tools/call"), 2u);
    EXPECT_TRUE(second.requests.empty());
}

TEST_F(replica_moves_test, a_single_replica_that_refuses_fails_the_call_without_a_second_try) {
    make();
    served(call());
    upstream.stop();
    auto r = call();
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_TRUE(std::get<upstream_failure>(r).unsent);
    EXPECT_EQ(upstream.count("initialize"), 1u);
    EXPECT_TRUE(units->sessions.root()->life.ready()) << "no other replica to open it on";
}

TEST_F(replica_moves_test, a_session_on_a_replica_out_of_rotation_opens_again_on_one_in_it) {
    replicated();
    served(call());
    rotation({false, true}); // the actor ejected the first (a failed probe: it may still answer)
    served(call());
    EXPECT_EQ(upstream.count("tools/call"), 1u) << "nothing more went to the ejected replica";
    EXPECT_EQ(second.count("initialize"), 1u);
    EXPECT_EQ(second.count("tools/call"), 1u);
    EXPECT_EQ(units->hooks.published, (std::vector<std::uint64_t>{1, 2}))
        << "gate's root session published again, for its subscriptions";
}

TEST_F(replica_moves_test, a_session_stays_where_it_is_when_no_replica_is_in_rotation) {
    replicated();
    served(call());
    rotation({false, false}); // every replica ejected: moving would gain nothing
    served(call());
    EXPECT_EQ(upstream.count("tools/call"), 2u);
    EXPECT_EQ(upstream.count("initialize"), 1u);
    EXPECT_TRUE(second.requests.empty());
}

} // namespace
} // namespace gate::test
