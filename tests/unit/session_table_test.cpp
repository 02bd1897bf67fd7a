#include "transport/session_table.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

using namespace gate::transport;
using namespace std::chrono_literals;

namespace {
const session_table::time_point t0{};
}

TEST(session_table, ids_are_random_hex_and_distinct) {
    session_table t;
    auto a = *t.open("2025-11-25", t0), b = *t.open("2025-11-25", t0);
    EXPECT_NE(a, b);
    EXPECT_EQ(a.size(), 32u);
    EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(session_table, touch_reports_the_version_and_unknown_sessions) {
    session_table t;
    auto id = *t.open("2025-06-18", t0);
    EXPECT_EQ(t.touch(id, t0), "2025-06-18");
    EXPECT_FALSE(t.touch("nope", t0));
    EXPECT_TRUE(t.close(id));
    EXPECT_FALSE(t.touch(id, t0));
    EXPECT_FALSE(t.close(id));
}

TEST(session_table, idle_sessions_expire_unless_used_or_streaming) {
    boost::asio::io_context io;
    session_table t;
    auto idle = *t.open("v", t0), used = *t.open("v", t0), streaming = *t.open("v", t0);
    auto stream = std::make_shared<boost::asio::steady_timer>(io);
    ASSERT_EQ(t.attach_stream(streaming, stream), session_table::attach_result::attached);
    t.touch(used, t0 + 50min);
    EXPECT_TRUE(t.expire_idle(t0 + 59min, 1h).empty());
    EXPECT_EQ(t.expire_idle(t0 + 60min, 1h), std::vector<std::string>{idle});
    EXPECT_FALSE(t.contains(idle));
    EXPECT_TRUE(t.contains(used));
    EXPECT_TRUE(t.contains(streaming));
    stream.reset(); // the stream closed
    EXPECT_EQ(t.expire_idle(t0 + 3h, 1h).size(), 2u);
    EXPECT_EQ(t.size(), 0u);
}

TEST(session_table, broadcast_queues_for_streaming_sessions_and_is_bounded) {
    boost::asio::io_context io;
    session_table t;
    auto a = *t.open("v", t0), b = *t.open("v", t0), silent = *t.open("v", t0);
    auto sa = std::make_shared<boost::asio::steady_timer>(io);
    auto sb = std::make_shared<boost::asio::steady_timer>(io);
    t.attach_stream(a, sa);
    t.attach_stream(b, sb);
    t.broadcast("m1");
    EXPECT_EQ(t.take_outbox(a), std::vector<std::string>{"m1"});
    EXPECT_TRUE(t.take_outbox(a).empty());
    EXPECT_TRUE(t.take_outbox(silent).empty()); // no stream: nothing queued
    for (int i = 0; i < 1000; ++i)
        t.broadcast(std::to_string(i));
    auto queued = t.take_outbox(b);
    EXPECT_EQ(queued.size(), 256u);
    EXPECT_EQ(queued.back(), "999");
}

TEST(session_table, refuses_new_sessions_at_the_ceiling) {
    session_table t(2);
    auto a = t.open("v", t0);
    ASSERT_TRUE(a);
    ASSERT_TRUE(t.open("v", t0));
    EXPECT_FALSE(t.open("v", t0));
    t.close(*a);
    EXPECT_TRUE(t.open("v", t0));
}

TEST(session_table, caps_live_streams_per_session) {
    boost::asio::io_context io;
    session_table t;
    auto id = *t.open("v", t0);
    std::vector<std::shared_ptr<boost::asio::steady_timer>> streams;
    for (std::size_t i = 0; i < session_table::max_streams_per_session; ++i) {
        streams.push_back(std::make_shared<boost::asio::steady_timer>(io));
        EXPECT_EQ(t.attach_stream(id, streams.back()), session_table::attach_result::attached);
    }
    auto extra = std::make_shared<boost::asio::steady_timer>(io);
    EXPECT_EQ(t.attach_stream(id, extra), session_table::attach_result::too_many_streams);
    streams.pop_back(); // one stream closed: room again
    EXPECT_EQ(t.attach_stream(id, extra), session_table::attach_result::attached);
    EXPECT_EQ(t.attach_stream("nope", extra), session_table::attach_result::unknown_session);
}

TEST(session_table, deliver_queues_for_one_session_even_before_its_stream_opens) {
    session_table t;
    auto a = *t.open("v", t0, boost::json::object{{"sampling", boost::json::object{}}});
    auto b = *t.open("v", t0);
    EXPECT_TRUE(t.capabilities(a).contains("sampling"));
    EXPECT_TRUE(t.capabilities(b).empty());
    for (int i = 0; i < 300; ++i)
        EXPECT_TRUE(t.deliver(a, std::to_string(i)));
    EXPECT_FALSE(t.deliver("unknown", "x"));
    auto got = t.take_outbox(a);
    ASSERT_EQ(got.size(), 256u); // bounded, oldest dropped first
    EXPECT_EQ(got.front(), "44");
    EXPECT_TRUE(t.take_outbox(b).empty());
}

TEST(session_table, a_session_of_the_fleet_is_adopted_under_its_own_id) {
    session_table t(2);
    auto mine = *t.open("2025-11-25", t0, {}, "alice");
    EXPECT_TRUE(t.adopt("feedc0de", "2025-06-18", t0 + 5s, {}, "bob", nullptr));
    EXPECT_TRUE(t.owned_by("feedc0de", "bob"));
    EXPECT_FALSE(t.owned_by("feedc0de", "alice"));
    EXPECT_EQ(t.touch("feedc0de", t0 + 6s), "2025-06-18");
    // Held already: kept as it is (its owner too).
    EXPECT_TRUE(t.adopt("feedc0de", "2025-11-25", t0 + 7s, {}, "mallory", nullptr));
    EXPECT_TRUE(t.owned_by("feedc0de", "bob"));
    // The ceiling holds for adopted sessions as for opened ones.
    EXPECT_FALSE(t.adopt("other", "2025-11-25", t0, {}, "", nullptr));
    // Used since: the adopted one (touched at 6 s), not the one opened at 0.
    EXPECT_EQ(t.used_since(t0 + 1s), std::vector<std::string>{"feedc0de"});
    EXPECT_EQ(t.used_since(t0).size(), 2u);
    EXPECT_FALSE(t.listening(mine));
}
