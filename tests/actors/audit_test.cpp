// The audit sink under CAF's test_coordinator: its buffer is bounded, an offer over the
// bound is dropped (and reported), and written events free their place.
#include "actors/sinks/audit.hpp"
#include "coordinator_fixture.hpp"

#include <cstdio>
#include <string>

namespace gate {
namespace {

struct audit_fixture : test::coordinator_fixture {
    std::FILE* out = std::tmpfile();
    actors::audit_channel channel =
        spawn_audit(sys, config::audit{{config::audit_sink{"stdout", {}, {}}}}, stdout_outlet(), 2);

    actors::audit_outlet stdout_outlet() {
        actors::audit_outlet o;
        o.out = out;
        return o;
    }

    actors::audit_event event(std::string method) {
        actors::audit_event e;
        e.time = std::chrono::system_clock::now();
        e.method = std::move(method);
        e.outcome = protocol::outcome::ok;
        return e;
    }
    std::string written() {
        std::fflush(out);
        std::rewind(out);
        std::string text;
        char buf[4096];
        while (auto n = std::fread(buf, 1, sizeof buf, out))
            text.append(buf, n);
        return text;
    }
    ~audit_fixture() override {
        caf::anon_send_exit(channel.sink(), caf::exit_reason::user_shutdown);
        sched.run();
        std::fclose(out);
    }
};

} // namespace

TEST_F(audit_fixture, an_offer_over_the_bound_is_dropped_and_written_ones_free_their_place) {
    EXPECT_TRUE(channel.offer(event("one")));
    EXPECT_TRUE(channel.offer(event("two")));
    EXPECT_FALSE(channel.offer(event("three"))); // two waiting: the sink has not run
    sched.run();
    auto text = written();
    EXPECT_NE(text.find("\"one\""), std::string::npos);
    EXPECT_NE(text.find("\"two\""), std::string::npos);
    EXPECT_EQ(text.find("\"three\""), std::string::npos);
    EXPECT_TRUE(channel.offer(event("four")));
    sched.run();
    EXPECT_NE(written().find("\"four\""), std::string::npos);
}

TEST(audit_channel, without_an_audit_section_nothing_is_spawned_and_offers_are_ignored) {
    actors::audit_channel none;
    EXPECT_FALSE(static_cast<bool>(none));
    EXPECT_TRUE(none.offer(actors::audit_event{}));
}

} // namespace gate

namespace gate {
namespace {

// The webhook path under virtual time: the io side is a recorder the test answers by hand.
struct webhook_fixture : test::coordinator_fixture {
    std::vector<actors::batch_post> posted;
    actors::audit_outlet outlet = [this] {
        actors::audit_outlet o;
        o.post = [this](actors::batch_post d) { posted.push_back(std::move(d)); };
        o.limits.batch = 3;
        o.limits.buffer = 4;
        o.close_grace = std::chrono::seconds(5);
        return o;
    }();
    actors::audit_channel channel = spawn_audit(
        sys,
        config::audit{
            {config::audit_sink{"webhook", "http://127.0.0.1:1/in", {{"X-Team", "sec"}}}}},
        outlet);

    void offer(std::string method) {
        actors::audit_event e;
        e.method = std::move(method);
        channel.offer(std::move(e));
        sched.run();
    }
    void answer(std::size_t i, actors::batcher::result r) {
        posted.at(i).reply({r, "test"});
        sched.run();
    }
    ~webhook_fixture() override {
        caf::anon_send_exit(channel.sink(), caf::exit_reason::user_shutdown);
        sched.run();
    }
};

TEST_F(webhook_fixture, events_leave_in_batches_with_the_configured_headers_and_a_key) {
    offer("a");
    EXPECT_TRUE(posted.empty()); // lingering for company
    offer("b");
    offer("c"); // a full batch
    ASSERT_EQ(posted.size(), 1u);
    const auto& d = posted[0];
    EXPECT_EQ(d.url, "http://127.0.0.1:1/in");
    EXPECT_NE(d.body.find("\"method\":\"a\""), std::string::npos);
    EXPECT_NE(d.body.find("\"method\":\"c\""), std::string::npos);
    EXPECT_EQ(d.body.front(), '[');
    auto header = [&](std::string_view name) -> std::string {
        for (const auto& [n, v] : d.headers)
            if (n == name)
                return v;
        return {};
    };
    EXPECT_EQ(header("X-Team"), "sec");
    EXPECT_FALSE(header("Idempotency-Key").empty());
    answer(0, actors::batcher::result::delivered);
    EXPECT_EQ(outlet.tally->delivered.load(), 3);
}

TEST_F(webhook_fixture, a_failing_receiver_gets_the_batch_again_after_the_backoff) {
    offer("a");
    sched.advance_time(std::chrono::milliseconds(200)); // the linger
    sched.run();
    ASSERT_EQ(posted.size(), 1u);
    answer(0, actors::batcher::result::failed);
    sched.advance_time(std::chrono::milliseconds(499));
    sched.run();
    EXPECT_EQ(posted.size(), 1u);
    sched.advance_time(std::chrono::milliseconds(1));
    sched.run();
    ASSERT_EQ(posted.size(), 2u);
    EXPECT_EQ(posted[1].body, posted[0].body);
    answer(1, actors::batcher::result::delivered);
    EXPECT_EQ(outlet.tally->failures.load(), 1);
    EXPECT_EQ(outlet.tally->delivered.load(), 1);
}

TEST_F(webhook_fixture, a_full_buffer_drops_and_counts_while_the_receiver_is_down) {
    for (auto m : {"a", "b", "c", "d", "e", "f"})
        offer(m);
    // a,b,c in flight (unanswered), d waits: the buffer of four is full.
    EXPECT_EQ(outlet.tally->dropped.load(), 2);
}

TEST_F(webhook_fixture, a_flush_delivers_a_partial_batch_at_once_and_answers_when_empty) {
    offer("a");
    std::optional<bool> flushed;
    caf::anon_send(channel.sink(), actors::audit_flush{actors::reply_to<bool>(
                                       [&](std::optional<bool> r) { flushed = r; })});
    sched.run();
    ASSERT_EQ(posted.size(), 1u);
    EXPECT_FALSE(flushed);
    answer(0, actors::batcher::result::delivered);
    EXPECT_EQ(flushed, true);
}

TEST_F(webhook_fixture, a_replaced_sink_stops_after_its_grace_even_if_the_receiver_is_down) {
    offer("a");
    caf::anon_send(channel.sink(), actors::audit_close{});
    sched.run();
    ASSERT_EQ(posted.size(), 1u);
    answer(0, actors::batcher::result::failed);
    sched.advance_time(std::chrono::seconds(5));
    sched.run();
    EXPECT_EQ(outlet.tally->dropped.load(), 1);
}

} // namespace
} // namespace gate
