#include "gateway/mcp/session_table.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

using namespace gate::gateway;
using namespace std::chrono_literals;

namespace {
const session_table::time_point t0{};

session_table::opening of(std::string holder = "anonymous 127.0.0.1",
                          boost::json::object capabilities = {}, std::string owner = {}) {
    return {"v", std::move(capabilities), std::move(owner), nullptr, std::move(holder)};
}

// A new session's id (the test fails if it is refused).
std::string open(session_table& t, session_table::time_point at, session_table::opening o = of()) {
    auto a = t.open(std::move(o), at);
    EXPECT_TRUE(a.id);
    return a.id.value_or("");
}
} // namespace

TEST(session_table, ids_are_random_hex_and_distinct) {
    session_table t;
    auto a = open(t, t0), b = open(t, t0);
    EXPECT_NE(a, b);
    EXPECT_EQ(a.size(), 32u);
    EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(session_table, touch_reports_the_version_and_unknown_sessions) {
    session_table t;
    auto o = of();
    o.protocol_version = "2025-06-18";
    auto id = open(t, t0, o);
    EXPECT_EQ(t.touch(id, t0), "2025-06-18");
    EXPECT_FALSE(t.touch("nope", t0));
    EXPECT_TRUE(t.close(id));
    EXPECT_FALSE(t.touch(id, t0));
    EXPECT_FALSE(t.close(id));
}

TEST(session_table, the_session_steps_look_uses_only_its_owners_session) {
    session_table t;
    auto bobs = open(t, t0, of("bob", {}, "bob"));
    // Another principal's: found as such, neither marked used nor held.
    auto other = t.look_up(bobs, "alice", t0 + 50min);
    EXPECT_EQ(other.found, session_table::owner_found::another);
    EXPECT_EQ(t.expire_idle(t0 + 60min, 1h), std::vector<std::string>{bobs});
    EXPECT_EQ(t.look_up(bobs, "bob").found, session_table::owner_found::none);

    auto id = open(t, t0, of("bob", {}, "bob"));
    // Without `use`: told, nothing marked.
    EXPECT_EQ(t.look_up(id, "bob").found, session_table::owner_found::owner);
    auto mine = t.look_up(id, "bob", t0 + 50min); // marked used then, and held
    EXPECT_EQ(mine.found, session_table::owner_found::owner);
    EXPECT_TRUE(t.expire_idle(t0 + 3h, 1h).empty());    // in use
    mine.call = {};                                     // answered
    EXPECT_TRUE(t.expire_idle(t0 + 60min, 1h).empty()); // used at 50 min
    EXPECT_EQ(t.expire_idle(t0 + 110min, 1h), std::vector<std::string>{id});
}

TEST(session_table, idle_sessions_expire_unless_used_or_streaming) {
    boost::asio::io_context io;
    session_table t;
    auto idle = open(t, t0), used = open(t, t0), streaming = open(t, t0), calling = open(t, t0);
    auto stream = std::make_shared<boost::asio::steady_timer>(io);
    ASSERT_EQ(t.attach_stream(streaming, stream), session_table::attach_result::attached);
    t.touch(used, t0 + 50min);
    std::optional<session_call> call = t.call_on(calling); // a call that runs for hours
    EXPECT_TRUE(t.expire_idle(t0 + 59min, 1h).empty());
    EXPECT_EQ(t.expire_idle(t0 + 60min, 1h), std::vector<std::string>{idle});
    EXPECT_FALSE(t.contains(idle));
    EXPECT_TRUE(t.contains(used));
    EXPECT_TRUE(t.contains(streaming));
    EXPECT_TRUE(t.contains(calling));
    stream.reset(); // the stream closed
    call.reset();   // the call ended
    EXPECT_EQ(t.expire_idle(t0 + 3h, 1h).size(), 3u);
    EXPECT_EQ(t.size(), 0u);
    EXPECT_EQ(t.held_by("anonymous 127.0.0.1"), 0u);
}

TEST(session_table, broadcast_queues_for_streaming_sessions_and_is_bounded) {
    boost::asio::io_context io;
    session_table t;
    auto a = open(t, t0), b = open(t, t0), silent = open(t, t0);
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

TEST(session_table, at_the_ceiling_an_idle_session_makes_room_and_one_in_use_does_not) {
    boost::asio::io_context io;
    session_table t({2, 2});
    auto a = open(t, t0), b = open(t, t0 + 1s);
    auto stream = std::make_shared<boost::asio::steady_timer>(io);
    t.attach_stream(a, stream);
    std::optional<session_call> call = t.call_on(b);
    auto refused = t.open(of(), t0 + 2s);
    EXPECT_FALSE(refused.id);
    EXPECT_FALSE(refused.evicted);
    EXPECT_EQ(refused.refused, share_reason::caller_share);
    call.reset(); // b's call ended: b is idle, and goes
    auto admitted = t.open(of(), t0 + 3s);
    ASSERT_TRUE(admitted.id);
    ASSERT_TRUE(admitted.evicted);
    EXPECT_EQ(admitted.evicted->id, b);
    EXPECT_EQ(admitted.evicted->holder, "anonymous 127.0.0.1");
    EXPECT_EQ(admitted.evicted->idle, 2s);
    EXPECT_FALSE(t.contains(b));
    EXPECT_TRUE(t.contains(a));
    EXPECT_EQ(t.size(), 2u);
}

TEST(session_table, one_caller_at_its_share_ends_its_own_and_leaves_room_for_others) {
    session_table t({4, 2});
    auto flood = of("anonymous 10.0.0.1");
    auto first = open(t, t0, flood);
    open(t, t0 + 1s, flood);
    auto third = t.open(flood, t0 + 2s);
    ASSERT_TRUE(third.evicted);
    EXPECT_EQ(third.evicted->id, first);
    EXPECT_EQ(third.evicted->reason, share_reason::caller_share);
    EXPECT_EQ(t.held_by("anonymous 10.0.0.1"), 2u);
    // Another caller opens as many as its own share allows, and nothing of the flood's goes.
    auto other = of("issuer\nalice");
    EXPECT_FALSE(t.open(other, t0 + 3s).evicted);
    EXPECT_FALSE(t.open(other, t0 + 3s).evicted);
    EXPECT_EQ(t.held_by("issuer\nalice"), 2u);
    EXPECT_EQ(t.held_by("anonymous 10.0.0.1"), 2u);
    // Ended sessions leave the books too.
    EXPECT_EQ(t.close_all().size(), 4u);
    EXPECT_EQ(t.held_by("issuer\nalice"), 0u);
}

TEST(session_table, a_call_mark_outlives_its_session_and_its_table) {
    std::optional<session_call> call;
    {
        session_table t;
        auto id = open(t, t0);
        call = t.call_on(id);
        EXPECT_TRUE(t.expire_idle(t0 + 2h, 1h).empty()); // in use
        EXPECT_TRUE(t.close(id));
        // Adopted again under its id (a fleet): a count of its own, idle whatever the old
        // call does.
        ASSERT_TRUE(t.adopt(id, of(), t0).id);
        EXPECT_EQ(t.expire_idle(t0 + 2h, 1h), std::vector<std::string>{id});
        session_call none = t.call_on("unknown"); // marks nothing
    }
    call.reset(); // the table is gone (a frame destroyed with the io_context): nothing freed
}

TEST(session_table, a_lowered_limit_applies_to_the_next_session) {
    session_table t({10, 10});
    auto first = open(t, t0);
    open(t, t0 + 1s);
    open(t, t0 + 2s);
    t.set_limits({10, 1});
    auto next = t.open(of(), t0 + 3s);
    ASSERT_TRUE(next.evicted);
    EXPECT_EQ(next.evicted->id, first);
    EXPECT_EQ(t.size(), 3u);
}

TEST(session_table, anonymous_callers_share_by_address_and_an_ipv6_network_by_its_64) {
    namespace ip = boost::asio::ip;
    auto alice = std::make_shared<const gate::policy::principal>(
        gate::policy::principal{"alice", "https://idp", {}, {}});
    EXPECT_EQ(share_holder(alice, ip::make_address("10.0.0.1")), "https://idp\nalice");
    EXPECT_EQ(share_holder(nullptr, ip::make_address("10.0.0.1")), "anonymous 10.0.0.1");
    EXPECT_EQ(share_holder(nullptr, ip::make_address("::ffff:10.0.0.1")), "anonymous 10.0.0.1");
    EXPECT_EQ(share_holder(nullptr, ip::make_address("2001:db8:1:2:aaaa::1")),
              "anonymous 2001:db8:1:2::/64");
    EXPECT_EQ(share_holder(nullptr, ip::make_address("2001:db8:1:2:bbbb::7")),
              share_holder(nullptr, ip::make_address("2001:db8:1:2::1")));
    EXPECT_NE(share_holder(nullptr, ip::make_address("2001:db8:1:3::1")),
              share_holder(nullptr, ip::make_address("2001:db8:1:2::1")));
}

TEST(session_table, caps_live_streams_per_session) {
    boost::asio::io_context io;
    session_table t;
    auto id = open(t, t0);
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
    auto a = open(t, t0, of("anonymous 127.0.0.1", {{"sampling", boost::json::object{}}}));
    auto b = open(t, t0);
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
    session_table t({2, 1});
    auto mine = open(t, t0, of("alice", {}, "alice"));
    auto bob = of("bob", {}, "bob");
    bob.protocol_version = "2025-06-18";
    EXPECT_EQ(t.adopt("feedc0de", bob, t0 + 5s).id, "feedc0de");
    EXPECT_TRUE(owned_by(t, "feedc0de", "bob"));
    EXPECT_FALSE(owned_by(t, "feedc0de", "alice"));
    EXPECT_EQ(t.touch("feedc0de", t0 + 6s), "2025-06-18");
    // Held already: kept as it is (its owner too).
    EXPECT_EQ(t.adopt("feedc0de", of("mallory", {}, "mallory"), t0 + 7s).id, "feedc0de");
    EXPECT_TRUE(owned_by(t, "feedc0de", "bob"));
    // The shares hold for adopted sessions as for opened ones: bob's second ends its first
    // only while that one is idle.
    std::optional<session_call> call = t.call_on("feedc0de");
    auto refused = t.adopt("other", bob, t0 + 8s);
    EXPECT_FALSE(refused.id);
    EXPECT_EQ(refused.refused, share_reason::caller_share);
    call.reset();
    // Used since: the adopted one (touched at 6 s), not the one opened at 0.
    EXPECT_EQ(t.used_since(t0 + 1s), std::vector<std::string>{"feedc0de"});
    EXPECT_EQ(t.used_since(t0).size(), 2u);
}

TEST(session_table, a_queue_is_bounded_by_bytes_too_and_counts_what_it_drops) {
    session_table t;
    auto a = open(t, t0);
    const std::string mib(1024 * 1024, 'x');
    for (int i = 0; i < 6; ++i)
        EXPECT_TRUE(t.deliver(a, std::to_string(i) + mib));
    // 4 MiB at most: each message is a byte over 1 MiB, so three fit and the oldest three go.
    auto got = t.take_outbox(a);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got.front()[0], '3');
    EXPECT_EQ(got.back()[0], '5');
    EXPECT_EQ(t.dropped_messages(), 3u);
    // The newest always stays, however large; the queue empties when taken.
    const std::string huge(session_table::max_outbox_bytes + 1, 'y');
    EXPECT_TRUE(t.deliver(a, huge));
    EXPECT_EQ(t.take_outbox(a), std::vector<std::string>{huge});
    EXPECT_TRUE(t.deliver(a, "small"));
    EXPECT_EQ(t.take_outbox(a), std::vector<std::string>{"small"});
    EXPECT_EQ(t.dropped_messages(), 3u);
}

TEST(session_table, each_of_n_io_threads_mints_its_own_ids_and_the_process_holds_the_limits) {
    // Two threads' tables counted together: server.sessions max 4, perPrincipal 3.
    auto census = std::make_shared<session_census>();
    session_table a, b;
    a.set_limits({4, 3}, session_table::among_threads{{0, 2}, census});
    b.set_limits({4, 3}, session_table::among_threads{{1, 2}, census});
    // Every id names its own thread (protocol/shard_key), so its requests come back there.
    auto a1 = open(a, t0);
    EXPECT_EQ(gate::protocol::shard_of(a1, 2), 0u);
    auto b1 = open(b, t0 + 1s);
    EXPECT_EQ(gate::protocol::shard_of(b1, 2), 1u);
    auto b2 = open(b, t0 + 2s);
    // The caller's third is its share in the process, wherever they are: a fourth on a ends
    // a's own idle one; on a thread holding none of the caller's, it is refused.
    auto a2 = a.open(of(), t0 + 3s);
    ASSERT_TRUE(a2.id);
    ASSERT_TRUE(a2.evicted);
    EXPECT_EQ(a2.evicted->id, a1);
    EXPECT_EQ(a2.evicted->reason, share_reason::caller_share);
    session_table c;
    c.set_limits({4, 3}, session_table::among_threads{{1, 2}, census});
    auto none_here = c.open(of(), t0 + 4s);
    EXPECT_FALSE(none_here.id);
    EXPECT_EQ(none_here.refused, share_reason::caller_share);
    EXPECT_EQ(census->held_by("anonymous 127.0.0.1"), 3u);
    // The fourth session in the process fills the table; a fifth, of another caller, ends the
    // least recently used idle session of the thread it lands on.
    open(a, t0 + 5s, of("issuer\nalice"));
    EXPECT_EQ(census->size(), 4u);
    auto full = b.open(of("issuer\nbob"), t0 + 6s);
    ASSERT_TRUE(full.id);
    ASSERT_TRUE(full.evicted);
    EXPECT_EQ(full.evicted->id, b1);
    EXPECT_EQ(full.evicted->reason, share_reason::table_full);
    EXPECT_EQ(census->size(), 4u);
    EXPECT_EQ(census->held_by("issuer\nbob"), 1u);
    EXPECT_EQ(census->held_by("anonymous 127.0.0.1"), 2u);
    // Ended sessions leave the count: closed, expired or all of a thread's at once.
    EXPECT_TRUE(b.close(b2));
    EXPECT_EQ(census->size(), 3u);
    EXPECT_EQ(a.expire_idle(t0 + 1h, 1min).size(), 2u);
    EXPECT_EQ(census->size(), 1u);
    EXPECT_EQ(b.close_all().size(), 1u);
    EXPECT_EQ(census->size(), 0u);
    EXPECT_EQ(census->held_by("issuer\nbob"), 0u);
    // One thread: the limits as configured, its own table the count.
    session_table one({100, 3});
    open(one, t0);
    open(one, t0 + 1s);
    EXPECT_FALSE(one.open(of(), t0 + 2s).evicted);
}

TEST(session_census, claims_within_both_bounds_and_hands_over_only_within_the_receivers_share) {
    session_census c;
    session_limits limits{3, 2};
    EXPECT_EQ(c.claim("x", limits), std::nullopt);
    EXPECT_EQ(c.claim("x", limits), std::nullopt);
    EXPECT_EQ(c.claim("x", limits), share_reason::caller_share);
    EXPECT_EQ(c.claim("y", limits), std::nullopt);
    EXPECT_EQ(c.claim("z", limits), share_reason::table_full);
    EXPECT_EQ(c.size(), 3u);
    // z takes one of x's places; y, at its share of 2? not yet: it holds 1.
    EXPECT_TRUE(c.hand_over("x", "z", limits));
    EXPECT_EQ(c.held_by("x"), 1u);
    EXPECT_EQ(c.held_by("z"), 1u);
    EXPECT_TRUE(c.hand_over("x", "y", limits));
    EXPECT_EQ(c.held_by("x"), 0u);
    EXPECT_FALSE(c.hand_over("z", "y", limits)) << "y holds its share";
    EXPECT_EQ(c.held_by("z"), 1u);
    EXPECT_TRUE(c.hand_over("y", "y", limits)) << "its own place";
    EXPECT_EQ(c.size(), 3u);
    c.release("y");
    c.release("nobody");
    EXPECT_EQ(c.size(), 2u);
    // perPrincipal 0 is read as a share of 1, as the table reads it.
    session_census d;
    EXPECT_EQ(d.claim("x", {5, 0}), std::nullopt);
    EXPECT_EQ(d.claim("x", {5, 0}), share_reason::caller_share);
}

TEST(session_census, ranks_the_holders_above_the_processs_fair_share_most_first) {
    session_census c;
    session_limits limits{6, 6};
    for (auto [holder, n] : {std::pair{"a", 3}, {"b", 2}, {"c", 1}})
        for (int i = 0; i < n; ++i)
            EXPECT_EQ(c.claim(holder, limits), std::nullopt);
    // A newcomer makes four holders: 6 / 4 is a fair share of 1.
    EXPECT_EQ(c.above_fair_share({"c", "b", "a", "q"}, "d", limits),
              (std::vector<std::string>{"a", "b"}));
    // One of the three already there: 6 / 3 is 2.
    EXPECT_EQ(c.above_fair_share({"c", "b", "a"}, "a", limits), std::vector<std::string>{"a"});
    EXPECT_EQ(c.above_fair_share({"c"}, "d", limits), std::vector<std::string>{});
}
