// The task keeper under CAF's test_coordinator: pins, lookups for the owner, another
// principal and an unknown id (the probe case), and expiry after 24 h of virtual time.
#include "actors/federation/task_keeper.hpp"
#include "coordinator_fixture.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <gtest/gtest.h>

using namespace gate;
using namespace std::chrono_literals;

namespace {

struct task_keeper_fixture : test::coordinator_fixture {
    gate::actors::task_keeper_actor keeper = gate::actors::spawn_task_keeper(sys, 1h);

    gate::actors::task_owner find(const std::string& id, std::uint64_t principal) {
        std::optional<gate::actors::task_owner> got;
        caf::anon_send(keeper, actors::task_find{id, principal,
                                                 gate::actors::reply_to<gate::actors::task_owner>(
                                                     [&](auto v) { got = v; })});
        sched.run();
        EXPECT_TRUE(got);
        return got.value_or(actors::task_owner{});
    }
    std::size_t count() {
        std::optional<std::size_t> got;
        caf::anon_send(keeper, actors::task_count{
                                   gate::actors::reply_to<std::size_t>([&](auto v) { got = v; })});
        sched.run();
        return got.value_or(999);
    }
    ~task_keeper_fixture() override {
        caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

} // namespace

TEST_F(task_keeper_fixture, pins_answer_owner_foreign_and_unknown) {
    caf::anon_send(keeper, actors::task_pin{"t", 1, "up-3"});
    sched.run();
    auto owned = find("t", 1);
    EXPECT_EQ(owned.what, gate::actors::task_owner::kind::owned);
    EXPECT_EQ(owned.upstream, "up-3");
    EXPECT_EQ(find("t", 2).what,
              gate::actors::task_owner::kind::foreign); // answered -32002, not probed
    EXPECT_EQ(find("u", 1).what, gate::actors::task_owner::kind::unknown); // the probe path
}

TEST_F(task_keeper_fixture, records_expire_after_24_hours_of_virtual_time) {
    caf::anon_send(keeper, actors::task_pin{"t", 1, "up-0"});
    sched.run();
    for (int h = 0; h < 23; ++h) {
        sched.advance_time(1h);
        sched.run();
    }
    EXPECT_EQ(find("t", 1).what, gate::actors::task_owner::kind::owned);
    EXPECT_EQ(count(), 1u);
    sched.advance_time(1h);
    sched.run();
    EXPECT_EQ(find("t", 1).what, gate::actors::task_owner::kind::unknown);
    EXPECT_EQ(count(), 0u); // the hourly sweep dropped it
}
