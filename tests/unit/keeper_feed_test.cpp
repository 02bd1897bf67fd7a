// The io thread's line to the bridge keeper: one batch per interval, a flush before each
// question, nothing kept without a keeper.
#include "gateway/mcp/keeper_feed.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace gate;
using gate::gateway::keeper_batch;
using gate::gateway::keeper_feed;

namespace {

struct fake_keeper final : keeper_feed::keeper {
    bool here = true;
    std::vector<std::vector<actors::bridge_event>> batches;
    bool present() const override { return here; }
    void send(std::vector<gate::actors::bridge_event> batch) override {
        batches.push_back(std::move(batch));
    }
};

constexpr auto at_once = std::chrono::steady_clock::duration::zero();
constexpr auto never = std::chrono::hours(1);

} // namespace

TEST(keeper_feed, what_an_interval_hears_goes_as_one_batch) {
    boost::asio::io_context io;
    fake_keeper k;
    keeper_feed feed(io.get_executor(), k, at_once);
    std::string session = "s1", client_id = "1", upstream = "a";
    feed.tell(actors::bridge_listening{session, true});
    feed.tell(actors::bridge_subscription{session, upstream, "file:///x", true});
    keeper_batch::open_call call;
    feed.call_sent(call, session, client_id, upstream, 7);
    feed.call_over(call);
    feed.tell(actors::bridge_used{session, upstream}); // folded into the call's use
    EXPECT_TRUE(k.batches.empty());                    // nothing before the interval ends
    io.run();
    ASSERT_EQ(k.batches.size(), 1u);
    const auto& b = k.batches[0];
    ASSERT_EQ(b.size(), 3u);
    EXPECT_TRUE(std::holds_alternative<gate::actors::bridge_listening>(b[0]));
    EXPECT_TRUE(std::holds_alternative<gate::actors::bridge_subscription>(b[1]));
    EXPECT_EQ(std::get<gate::actors::bridge_used>(b[2]).session, "s1");
    // The next interval is armed again by what it hears.
    io.restart();
    feed.tell(actors::bridge_session_ended{session});
    io.run();
    ASSERT_EQ(k.batches.size(), 2u);
    EXPECT_TRUE(std::holds_alternative<gate::actors::bridge_session_ended>(k.batches[1].at(0)));
}

TEST(keeper_feed, a_question_flushes_first_and_leaves_the_interval_armed) {
    boost::asio::io_context io;
    fake_keeper k;
    keeper_feed feed(io.get_executor(), k, never);
    std::string session = "s1", client_id = "1", upstream = "a";
    keeper_batch::open_call call;
    feed.call_sent(call, session, client_id, upstream, 7);
    io.poll();
    EXPECT_TRUE(k.batches.empty());
    feed.flush(); // a call still open reaches the keeper as a start before the question
    ASSERT_EQ(k.batches.size(), 1u);
    ASSERT_EQ(k.batches[0].size(), 1u);
    EXPECT_EQ(std::get<gate::actors::bridge_call_started>(k.batches[0][0]).client_id, "1");
    feed.flush(); // nothing new: no message
    EXPECT_EQ(k.batches.size(), 1u);
    // Its end waits for the interval (still armed, not re-armed) or the next question.
    feed.call_over(call);
    io.poll();
    EXPECT_EQ(k.batches.size(), 1u);
    feed.flush();
    ASSERT_EQ(k.batches.size(), 2u);
    EXPECT_TRUE(std::holds_alternative<gate::actors::bridge_call_ended>(k.batches[1].at(0)));
}

TEST(keeper_feed, without_a_keeper_nothing_is_kept) {
    boost::asio::io_context io;
    fake_keeper k;
    k.here = false;
    keeper_feed feed(io.get_executor(), k, at_once);
    feed.tell(actors::bridge_listening{"s1", true});
    io.run();
    feed.flush();
    EXPECT_TRUE(k.batches.empty());
    k.here = true; // a keeper now (a respawn): what was dropped stays dropped
    feed.flush();
    EXPECT_TRUE(k.batches.empty());
}
