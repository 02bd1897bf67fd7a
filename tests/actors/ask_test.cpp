// The io thread's question to an actor (actors/bridge.hpp) under the test_coordinator,
// which runs the actor only when told: an answer resumes the asker; an actor that does not
// answer in time is given up on, and its late answer is ignored.
#include "../unit/test_config.hpp"
#include "actors/bridge.hpp"
#include "actors/federation/router.hpp"
#include "coordinator_fixture.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

namespace gate {
namespace {

constexpr auto full = protocol::full_profile;

using namespace std::chrono_literals;

struct ask_fixture : test::coordinator_fixture {
    std::shared_ptr<const actors::snapshot> snap = test::two_upstreams();
    actors::router_actor router = spawn_router(sys, snap);
    boost::asio::io_context io;
    std::optional<std::optional<actors::list_plan>> got; // outer: the ask finished

    void start(std::chrono::milliseconds timeout) {
        boost::asio::co_spawn(
            io,
            [this, timeout]() -> boost::asio::awaitable<void> {
                got = co_await actors::ask<actors::list_plan>(
                    router,
                    [&](actors::reply_to<actors::list_plan> r) {
                        return actors::plan_list{snap, protocol::list_kind::tools, full,
                                                 std::move(r)};
                    },
                    timeout);
            },
            boost::asio::detached);
        io.poll(); // the question is sent
    }
    ~ask_fixture() override {
        caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

} // namespace

TEST_F(ask_fixture, an_answer_resumes_the_asker) {
    start(60s);
    EXPECT_FALSE(got);
    sched.run(); // the router answers; the answer is posted to the io thread
    io.poll();
    ASSERT_TRUE(got);
    ASSERT_TRUE(*got);
    EXPECT_EQ((*got)->snap, snap);
}

TEST_F(ask_fixture, an_actor_that_does_not_answer_in_time_is_given_up_on) {
    start(20ms);
    io.run_one(); // the timeout fires: the router never ran
    ASSERT_TRUE(got);
    EXPECT_FALSE(*got);
    sched.run(); // its late answer arrives and changes nothing
    io.restart();
    io.poll();
    EXPECT_FALSE(*got);
}

} // namespace gate
