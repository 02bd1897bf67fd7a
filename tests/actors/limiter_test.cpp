// The limiter actor under CAF's test_coordinator, in virtual time: a low limit is granted one
// slot at a time and exactly; a full window is refused with the wait until a slot frees; the
// window slides; a high limit is granted in batches the io thread spends without asking; each
// principal has its own window beside the global one.
#include "actors/guards/limiter.hpp"
#include "actors/guards/slot_lease.hpp"
#include "coordinator_fixture.hpp"

#include <caf/all.hpp>

namespace gate {
namespace {

using namespace std::chrono_literals;

struct limiter_fixture : test::coordinator_fixture {
    actors::limiter_actor limiter = actors::spawn_limiter(sys);
    std::int64_t global = 0, per_principal = 0; // the limits the asks carry
    actors::slot_demand demand;                 // what the asks say the io thread spends
    actors::sliding_window::batch ask() {
        actors::sliding_window::batch got{-1, 0ms};
        caf::anon_send(
            limiter, actors::limit_ask{global, demand,
                                       actors::reply_to<actors::sliding_window::batch>([&](auto b) {
                                           if (b)
                                               got = *b;
                                       })});
        sched.run();
        return got;
    }
    actors::sliding_window::batch ask_for(std::string principal) {
        actors::sliding_window::batch got{-1, 0ms};
        caf::anon_send(limiter, actors::principal_limit_ask{
                                    std::move(principal), per_principal, demand,
                                    actors::reply_to<actors::sliding_window::batch>([&](auto b) {
                                        if (b)
                                            got = *b;
                                    })});
        sched.run();
        return got;
    }
    ~limiter_fixture() override {
        caf::anon_send_exit(limiter, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

} // namespace

TEST_F(limiter_fixture, a_low_limit_is_exact_and_a_full_window_waits_for_its_oldest_slot) {
    global = 2;
    EXPECT_EQ(ask().taken, 1);
    sched.advance_time(10s);
    sched.run();
    EXPECT_EQ(ask().taken, 1);
    auto full = ask();
    EXPECT_EQ(full.taken, 0);
    EXPECT_EQ(full.wait, 50s); // the first slot leaves the window 60 s after it was taken
    sched.advance_time(50s);
    sched.run();
    EXPECT_EQ(ask().taken, 1);
    EXPECT_EQ(ask().taken, 0);
}

TEST_F(limiter_fixture, a_high_limit_is_granted_in_batches_counted_in_the_current_second) {
    global = 1'000'000;
    sched.advance_time(1500ms);
    sched.run();
    auto b = ask();
    EXPECT_EQ(b.taken, actors::slot_demand::first);
    // To be spent before the end of the window slot (one second) that counted them.
    EXPECT_EQ(b.until.time_since_epoch(), std::chrono::seconds(2));
    actors::slot_lease lease;
    lease.grant(b.taken, b.until, sched.clock().now());
    auto now = sched.clock().now();
    int spent = 1; // the asking request
    while (lease.take(now))
        ++spent;
    EXPECT_EQ(spent, actors::slot_demand::first);
    EXPECT_FALSE(lease.take(b.until));
}

TEST_F(limiter_fixture, a_batch_is_sized_by_the_demand_its_ask_carries) {
    global = 1'000'000'000;
    sched.advance_time(1750ms); // a quarter of the second left
    sched.run();
    demand = {4000, 100'000};
    EXPECT_EQ(ask().taken, 1 + 1250); // what 4,000 a second spend by then, a quarter more
    demand = {2, 64};
    EXPECT_EQ(ask().taken, 2); // a quiet caller takes what it spends, not a fixed batch
    per_principal = 1'000'000;
    demand = {4000, 100'000};
    EXPECT_EQ(ask_for("alice").taken, 1 + 1250);
}

TEST_F(limiter_fixture, batches_never_grant_more_than_the_limit_in_a_window) {
    global = 100;
    std::int64_t granted = 0;
    for (int i = 0; i < 200; ++i)
        granted += ask().taken;
    EXPECT_EQ(granted, 100);
}

TEST_F(limiter_fixture, each_principal_has_its_own_window) {
    per_principal = 2;
    EXPECT_EQ(ask_for("idp\nalice").taken, 1);
    EXPECT_EQ(ask_for("idp\nalice").taken, 1);
    auto full = ask_for("idp\nalice");
    EXPECT_EQ(full.taken, 0);
    EXPECT_EQ(full.wait, 60s);
    EXPECT_EQ(ask_for("idp\nbob").taken, 1); // alice's window is not bob's
    sched.advance_time(60s);
    sched.run();
    EXPECT_EQ(ask_for("idp\nalice").taken, 1);
}

TEST_F(limiter_fixture, a_changed_limit_applies_at_once_with_a_fresh_window) {
    global = 1;
    EXPECT_EQ(ask().taken, 1);
    EXPECT_EQ(ask().taken, 0); // full
    global = 3;                // a reload raised it
    EXPECT_EQ(ask().taken, 1);
    EXPECT_EQ(ask().taken, 1);
    per_principal = 1;
    EXPECT_EQ(ask_for("idp\nalice").taken, 1);
    EXPECT_EQ(ask_for("idp\nalice").taken, 0);
    per_principal = 2;
    EXPECT_EQ(ask_for("idp\nalice").taken, 1);
}

} // namespace gate
