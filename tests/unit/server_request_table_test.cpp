// Pending upstream requests put to clients: an answer goes back once, only from the session
// that was asked, and nothing outlives the session or bridge that carried it.
#include "gateway/mcp/server_request_table.hpp"

#include <gtest/gtest.h>

using namespace gate::gateway;

TEST(server_request_table, an_answer_goes_back_once_and_only_from_the_asked_session) {
    server_request_table t;
    t.opened("s", "gate-1", {"u3", boost::json::value("up-7")});
    EXPECT_FALSE(t.take("intruder", "gate-1"));
    auto target = t.take("s", "gate-1");
    ASSERT_TRUE(target);
    EXPECT_EQ(target->upstream, "u3");
    EXPECT_EQ(target->upstream_id, boost::json::value("up-7"));
    EXPECT_FALSE(t.take("s", "gate-1"));
}

TEST(server_request_table, an_ended_session_or_bridge_forgets_what_it_carried) {
    server_request_table t;
    t.opened("s", "gate-1", {"a", 1});
    t.opened("s", "gate-2", {"b", 2});
    t.opened("s2", "gate-3", {"a", 3});
    t.forget_bridge("s", "a");
    EXPECT_FALSE(t.take("s", "gate-1"));
    EXPECT_EQ(t.size(), 2u);
    t.forget_session("s");
    EXPECT_FALSE(t.take("s", "gate-2"));
    t.forget_upstream("a");
    EXPECT_EQ(t.size(), 0u);
}
