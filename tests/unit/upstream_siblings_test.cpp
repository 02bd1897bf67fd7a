// The clients of one upstream entry on several io threads (gateway/upstream/upstream_siblings):
// they share one guard board (one breaker, one rate limit, one rotation for the process), a
// changed entry gets a board of its own, they read one copy of what the tools lists said, and
// what a handshake answered reaches the others on their own threads, never itself.
#include "gateway/upstream/upstream_client.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "upstream_loopback.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <chrono>
#include <gtest/gtest.h>

using gate::gateway::shared_tool_facts;
using gate::gateway::shared_upstreams;
using gate::gateway::tool_facts;
using gate::gateway::upstream_client;

namespace {

// One upstream entry, and two io threads that may each make a client of it.
struct one_entry : ::testing::Test {
    shared_upstreams shared;
    gate::config::upstream cfg = gate::test::upstream_at("http://127.0.0.1:1/mcp");
    boost::asio::io_context one, two;
    std::shared_ptr<upstream_client> client_on(boost::asio::io_context& io) {
        return upstream_client::make(io.get_executor(), cfg, shared.siblings_for(cfg));
    }
};

// The entry's client on each thread: a on the first, b on the second.
struct a_client_on_each_thread : one_entry {
    std::shared_ptr<upstream_client> a = client_on(one);
    std::shared_ptr<upstream_client> b = client_on(two);
};

} // namespace

TEST_F(one_entry, ClientsOfOneEntryShareABoardAndAChangedEntryGetsItsOwn) {
    auto a = shared.siblings_for(cfg);
    auto b = shared.siblings_for(cfg);
    EXPECT_EQ(a, b);
    auto changed = cfg;
    changed.timeouts.request_ms = 9000;
    auto c = shared.siblings_for(changed);
    EXPECT_NE(c, a);
    EXPECT_NE(c->board, a->board);
    auto first = upstream_client::make(one.get_executor(), cfg, a);
    auto second = upstream_client::make(two.get_executor(), cfg, b);
    EXPECT_EQ(first->guards().board(), second->guards().board());
    // Alone, a client keeps a board of its own.
    auto alone = upstream_client::make(one.get_executor(), cfg);
    EXPECT_NE(alone->guards().board(), first->guards().board());
}

TEST_F(one_entry, SiblingsLiveWhileAClientHoldsThem) {
    std::weak_ptr<gate::actors::guard_board> board;
    {
        auto s = shared.siblings_for(cfg);
        board = s->board;
    }
    EXPECT_TRUE(board.expired()) << "no client held them";
    EXPECT_NE(shared.siblings_for(cfg), nullptr);
}

TEST_F(a_client_on_each_thread, EveryClientOfAnEntryReadsOneCopyOfWhatItsListsSaid) {
    auto alone = upstream_client::make(one.get_executor(), cfg);
    auto listed =
        boost::json::parse(R"([{"name":"view","_meta":{"ui":{"visibility":["app"]}}}])").as_array();
    // What a's thread learnt from a list it fetched (upstream_requests::learn_tools).
    shared.siblings_for(cfg)->facts->amend([&](tool_facts& f) { f.tools.learn(listed); });
    EXPECT_TRUE(b->lists().facts()->tools.app_only("view")) << "read on b's thread, not told";
    EXPECT_EQ(a->lists().facts(), b->lists().facts()) << "one copy";
    EXPECT_EQ(one.poll() + two.poll(), 0u) << "nothing posted to either thread";
    EXPECT_FALSE(alone->lists().facts()->tools.listed()) << "a client alone keeps its own";
}

TEST(UpstreamSiblings, ListsFetchedOnTwoThreadsAddUpAndTakeNothingAway) {
    shared_tool_facts facts;
    // One thread's list (a host that runs views): an App-only tool with an annotated parameter.
    auto own = boost::json::parse(R"([{"name":"view","_meta":{"ui":{"visibility":["app"]}},
        "inputSchema":{"type":"object","properties":{"region":{"type":"string",
        "x-mcp-header":"Region"}}}}])")
                   .as_array();
    facts.amend([&](tool_facts& f) {
        f.tools.learn(own);
        f.headers.learn(own, nullptr, "up");
    });
    auto before = facts.now();
    // The other's, fetched for a client without views, leaves the tool out.
    auto plain = boost::json::parse(R"([{"name":"echo"}])").as_array();
    facts.amend([&](tool_facts& f) {
        f.tools.learn(plain);
        f.headers.learn(plain, nullptr, "up");
    });
    auto now = facts.now();
    EXPECT_TRUE(now->tools.app_only("view")) << "what the first said stays known";
    EXPECT_NE(now->headers.find("view"), nullptr) << "its annotations too";
    EXPECT_TRUE(now->tools.hints("echo").has_value()) << "and the second's tool is learnt";
    // A reader holding the earlier snapshot still reads it whole.
    EXPECT_FALSE(before->tools.hints("echo").has_value());
    EXPECT_NE(before->headers.find("view"), nullptr);
}

TEST(UpstreamSiblings, AReloadIsJudgedAgainOnceHoweverManyThreadsAdoptIt) {
    shared_tool_facts facts;
    auto listed = boost::json::parse(R"([{"name":"echo"}])").as_array();
    facts.amend([&](tool_facts& f) { f.tools.learn(listed); });
    facts.judge_again(2); // the first thread adopts the reload's snapshot
    EXPECT_FALSE(facts.now()->tools.listed()) << "judged again at the next list";
    facts.amend([&](tool_facts& f) { f.tools.learn(listed); }); // that list, under the new pins
    facts.judge_again(2); // the second thread adopts the same snapshot
    EXPECT_TRUE(facts.now()->tools.listed()) << "the new judgement is not forgotten";
    facts.judge_again(3);
    EXPECT_FALSE(facts.now()->tools.listed());
}

TEST_F(a_client_on_each_thread, AListTriedOnOneThreadIsTriedForAllAndAReloadForgetsIt) {
    auto now = std::chrono::steady_clock::now();
    EXPECT_TRUE(b->lists().tools_list_wanted(now));
    // A call on a's thread listed first, and the list failed.
    boost::asio::co_spawn(
        one, a->lists().list_first(now, []() -> boost::asio::awaitable<void> { co_return; }),
        boost::asio::detached);
    one.run();
    EXPECT_FALSE(b->lists().tools_list_wanted(now + std::chrono::seconds(9)));
    EXPECT_TRUE(b->lists().tools_list_wanted(now + std::chrono::seconds(10)));
    // A reload judges again: the next call that needs the list lists first, on every thread,
    // from the first thread's adopting it on.
    a->lists().judge_tools_again(2);
    EXPECT_TRUE(b->lists().tools_list_wanted(now + std::chrono::seconds(1)));
}

// After a reload, a call that arrives while the first call's list is out waits for it and is
// judged by what it said (a `block` pin's changed tool must not pass for that round trip);
// a call on another thread lists too rather than go on unlisted.
TEST_F(a_client_on_each_thread, ACallArrivingWhileAListIsOutWaitsForItOnEveryThread) {
    auto now = std::chrono::steady_clock::now();
    boost::asio::steady_timer upstream_answers(one, boost::asio::steady_timer::time_point::max());
    int lists = 0;
    bool second_went_on = false;
    auto list = [&]() -> boost::asio::awaitable<void> {
        ++lists;
        boost::system::error_code ec;
        co_await upstream_answers.async_wait(
            boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        a->lists().facts(); // what it said would be published here (learn_tools)
    };
    boost::asio::co_spawn(one, a->lists().list_first(now, list), boost::asio::detached);
    one.poll(); // the first call's list is out
    ASSERT_EQ(lists, 1);
    auto soon = now + std::chrono::seconds(1);
    EXPECT_TRUE(a->lists().tools_list_wanted(soon)) << "tried just now, but still out";
    EXPECT_TRUE(b->lists().tools_list_wanted(soon)) << "and on every thread";
    auto second = [&]() -> boost::asio::awaitable<void> {
        co_await a->lists().list_first(soon, list);
        second_went_on = true;
    };
    boost::asio::co_spawn(one, second(), boost::asio::detached);
    one.poll();
    EXPECT_FALSE(second_went_on) << "waits for the list out";
    upstream_answers.cancel();
    one.poll();
    EXPECT_TRUE(second_went_on);
    EXPECT_EQ(lists, 1) << "joined the list out, not a list of its own";
    EXPECT_FALSE(b->lists().tools_list_wanted(soon)) << "landed (failed here): tried just now";
}

TEST_F(one_entry, AHandshakesAnswerIsEveryClientsIdentityAndAJoinersToo) {
    auto before = client_on(two);
    gate::gateway::upstream_state shaker(one.get_executor(), cfg);
    shaker.siblings = shared.siblings_for(cfg);
    auto answer =
        boost::json::parse(R"({"serverInfo":{"name":"u"},"instructions":"Be kind."})").as_object();
    gate::gateway::learn_identity(shaker, answer);
    ASSERT_NE(shaker.identity, nullptr);
    EXPECT_EQ(*shaker.identity, answer);
    EXPECT_TRUE(before->identity().empty()) << "taken on its own thread";
    EXPECT_EQ(two.poll(), 1u);
    EXPECT_EQ(before->identity(), answer);
    auto later = client_on(two);
    EXPECT_EQ(later->identity(), answer) << "a client made after the handshake";
    EXPECT_EQ(&later->identity(), shaker.identity.get()) << "one copy for every client";
    EXPECT_EQ(&before->identity(), shaker.identity.get());
    two.restart();
    gate::gateway::learn_identity(shaker, answer);
    EXPECT_EQ(two.poll(), 0u) << "an answer the siblings know is not told again";
    // Told by a client of the entry: every other client hears it, the teller does not.
    auto changed = boost::json::parse(R"({"serverInfo":{"name":"v"}})").as_object();
    shaker.owner = later;
    gate::gateway::learn_identity(shaker, changed);
    two.restart();
    EXPECT_EQ(two.poll(), 1u);
    EXPECT_EQ(before->identity(), changed);
    EXPECT_EQ(later->identity(), answer);
    auto alone = upstream_client::make(one.get_executor(), cfg);
    EXPECT_TRUE(alone->identity().empty());
}
