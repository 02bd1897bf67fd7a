// The resource subscriptions gate holds at upstreams for a holder (gateway/mcp/
// subscription_holds), against a scripted upstream: each (upstream, URI) is subscribed at most
// once per holder, a holder's release unsubscribes only what it held, a URI two holders share
// stays subscribed until the last lets go, an upstream's refusal holds nothing, and a
// holder's end releases everything it held.
#include "gateway/mcp/subscription_holds.hpp"
#include "tests/unit/upstream_rig.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

using gateway::subscription_holds;
using gateway::upstream_client;

struct subscription_holds_test : ::testing::Test {
    boost::asio::io_context io;
    loopback_upstream upstream{io};
    std::shared_ptr<upstream_client> client;
    subscription_holds holds;

    void SetUp() override {
        client = upstream_client::make(io.get_executor(), upstream_at(upstream.url()));
    }
    void TearDown() override {
        client->close();
        settle(io);
    }
    subscription_holds::held hold(const std::string& holder, const std::string& uri) {
        return run(io, holds.hold(holder, client, uri));
    }
    bool unsubscribed(std::size_t n) {
        return run_until(io, [&] { return upstream.count("resources/unsubscribe") == n; });
    }
};

TEST_F(subscription_holds_test, a_holder_subscribes_each_uri_once) {
    auto first = hold("listen-1", "file:///a");
    EXPECT_FALSE(first.refused);
    EXPECT_TRUE(first.added);
    auto again = hold("listen-1", "file:///a");
    EXPECT_FALSE(again.refused);
    EXPECT_FALSE(again.added); // a repeated subscribe is one subscription
    EXPECT_EQ(upstream.count("resources/subscribe"), 1u);
    EXPECT_TRUE(holds.holds("listen-1", "u", "file:///a"));
    EXPECT_FALSE(holds.holds("listen-2", "u", "file:///a"));
}

TEST_F(subscription_holds_test, a_release_lets_go_of_what_the_holder_held_only) {
    hold("s1", "file:///a");
    EXPECT_FALSE(holds.release("s1", "u", "file:///b"));
    EXPECT_FALSE(holds.release("s2", "u", "file:///a"));
    EXPECT_TRUE(holds.release("s1", "u", "file:///a"));
    EXPECT_FALSE(holds.holds("s1", "u", "file:///a"));
    EXPECT_TRUE(unsubscribed(1));
    EXPECT_FALSE(holds.release("s1", "u", "file:///a")); // released already
}

TEST_F(subscription_holds_test, a_uri_two_holders_share_stays_until_the_last_lets_go) {
    EXPECT_TRUE(hold("s1", "file:///a").added);
    EXPECT_TRUE(hold("listen-1", "file:///a").added);
    EXPECT_EQ(upstream.count("resources/subscribe"), 1u); // the client holds it once
    EXPECT_TRUE(holds.release("s1", "u", "file:///a"));
    settle(io);
    EXPECT_EQ(upstream.count("resources/unsubscribe"), 0u);
    EXPECT_TRUE(holds.holds("listen-1", "u", "file:///a"));
    holds.release_all("listen-1");
    EXPECT_TRUE(unsubscribed(1));
}

TEST_F(subscription_holds_test, a_holders_end_releases_everything_it_held) {
    hold("listen-1", "file:///a");
    hold("listen-1", "file:///b");
    hold("listen-2", "file:///c");
    holds.release_all("listen-1");
    EXPECT_FALSE(holds.holds("listen-1", "u", "file:///a"));
    EXPECT_FALSE(holds.holds("listen-1", "u", "file:///b"));
    EXPECT_TRUE(holds.holds("listen-2", "u", "file:///c"));
    EXPECT_TRUE(unsubscribed(2));
    holds.release_all("listen-1"); // nothing left: nothing more goes upstream
    settle(io);
    EXPECT_EQ(upstream.count("resources/unsubscribe"), 2u);
}

TEST_F(subscription_holds_test, an_upstreams_refusal_holds_nothing) {
    upstream.on = [&](const seen& r) {
        if (r.method == "resources/subscribe")
            return reply::json(boost::json::serialize(boost::json::object{
                {"jsonrpc", "2.0"},
                {"id", r.id},
                {"error", {{"code", -32602}, {"message", "no such resource"}}}}));
        return upstream.mcp(r);
    };
    auto refused = hold("s1", "file:///missing");
    ASSERT_TRUE(refused.refused);
    EXPECT_TRUE(refused.refused->answer); // the upstream's own refusal, to pass on
    EXPECT_FALSE(refused.added);
    EXPECT_FALSE(holds.holds("s1", "u", "file:///missing"));
    holds.release_all("s1");
    settle(io);
    EXPECT_EQ(upstream.count("resources/unsubscribe"), 0u);
}

} // namespace
} // namespace gate::test
