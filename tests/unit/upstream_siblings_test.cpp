// The clients of one upstream entry on several io threads (gateway/upstream/upstream_siblings):
// they share one guard board (one breaker, one rate limit, one rotation for the process), a
// changed entry gets a board of its own, and what one client learnt from a tools list reaches
// the others on their own threads, never itself, as does what a handshake answered.
#include "gateway/upstream/upstream_client.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "upstream_loopback.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using gate::gateway::shared_upstreams;
using gate::gateway::upstream_client;

TEST(UpstreamSiblings, ClientsOfOneEntryShareABoardAndAChangedEntryGetsItsOwn) {
    shared_upstreams shared;
    auto cfg = gate::test::upstream_at("http://127.0.0.1:1/mcp");
    auto a = shared.siblings_for(cfg);
    auto b = shared.siblings_for(cfg);
    EXPECT_EQ(a, b);
    auto changed = cfg;
    changed.timeouts.request_ms = 9000;
    auto c = shared.siblings_for(changed);
    EXPECT_NE(c, a);
    EXPECT_NE(c->board, a->board);
    boost::asio::io_context one, two;
    auto first = upstream_client::make(one.get_executor(), cfg, a);
    auto second = upstream_client::make(two.get_executor(), cfg, b);
    EXPECT_EQ(first->guards().board(), second->guards().board());
    // Alone, a client keeps a board of its own.
    auto alone = upstream_client::make(one.get_executor(), cfg);
    EXPECT_NE(alone->guards().board(), first->guards().board());
}

TEST(UpstreamSiblings, SiblingsLiveWhileAClientHoldsThem) {
    shared_upstreams shared;
    auto cfg = gate::test::upstream_at("http://127.0.0.1:1/mcp");
    std::weak_ptr<gate::actors::guard_board> board;
    {
        auto s = shared.siblings_for(cfg);
        board = s->board;
    }
    EXPECT_TRUE(board.expired()) << "no client held them";
    EXPECT_NE(shared.siblings_for(cfg), nullptr);
}

TEST(UpstreamSiblings, ALessonReachesEveryOtherClientOnItsOwnThread) {
    shared_upstreams shared;
    auto cfg = gate::test::upstream_at("http://127.0.0.1:1/mcp");
    boost::asio::io_context one, two, three;
    auto a = upstream_client::make(one.get_executor(), cfg, shared.siblings_for(cfg));
    auto b = upstream_client::make(two.get_executor(), cfg, shared.siblings_for(cfg));
    auto c = upstream_client::make(three.get_executor(), cfg, shared.siblings_for(cfg));
    auto listed =
        boost::json::parse(R"([{"name":"view","_meta":{"ui":{"visibility":["app"]}}}])").as_array();
    std::vector<const upstream_client*> taught;
    shared.siblings_for(cfg)->tell_others(a.get(), [&](upstream_client& to) {
        to.lists().take_lesson({listed, {}, {}});
        taught.push_back(&to);
    });
    EXPECT_TRUE(taught.empty()) << "posted, not run on the teller's thread";
    EXPECT_EQ(one.poll(), 0u) << "nothing for the teller itself";
    EXPECT_EQ(two.poll(), 1u);
    EXPECT_EQ(three.poll(), 1u);
    EXPECT_EQ(taught, (std::vector<const upstream_client*>{b.get(), c.get()}));
    EXPECT_TRUE(b->lists().tools().app_only("view"));
    EXPECT_TRUE(c->lists().tools().listed());
    EXPECT_FALSE(a->lists().tools().listed());
    // A client gone before its lesson ran is skipped.
    shared.siblings_for(cfg)->tell_others(a.get(),
                                          [&](upstream_client& to) { taught.push_back(&to); });
    c.reset();
    two.restart(); // each ran out of work above
    three.restart();
    two.poll();
    three.poll();
    EXPECT_EQ(taught.size(), 3u);
}

TEST(UpstreamSiblings, ALessonAddsToWhatAClientKnowsAndTakesNothingAway) {
    shared_upstreams shared;
    auto cfg = gate::test::upstream_at("http://127.0.0.1:1/mcp");
    boost::asio::io_context one, two;
    auto a = upstream_client::make(one.get_executor(), cfg, shared.siblings_for(cfg));
    auto b = upstream_client::make(two.get_executor(), cfg, shared.siblings_for(cfg));
    // b's own list (a host that runs views): an App-only tool with an annotated parameter.
    auto own = boost::json::parse(R"([{"name":"view","_meta":{"ui":{"visibility":["app"]}},
        "inputSchema":{"type":"object","properties":{"region":{"type":"string",
        "x-mcp-header":"Region"}}}}])")
                   .as_array();
    b->lists().take_lesson({own, {}, {}});
    ASSERT_NE(b->lists().tool_headers().find("view"), nullptr);
    // a's list, fetched meanwhile for a client without views, leaves the tool out.
    auto plain = boost::json::parse(R"([{"name":"echo"}])").as_array();
    b->lists().take_lesson({plain, {}, {}});
    EXPECT_TRUE(b->lists().tools().app_only("view")) << "what b knew stays known";
    EXPECT_NE(b->lists().tool_headers().find("view"), nullptr) << "its annotations too";
    EXPECT_TRUE(b->lists().tools().hints("echo").has_value()) << "and a's tool is learnt";
    // What the teller withheld under its pins and dropped for its annotations is known so.
    b->lists().take_lesson({plain, {{"blocked", "pinned 1, listed 2"}}, {{"bad", "no header"}}});
    ASSERT_NE(b->lists().tools().withheld("blocked"), nullptr);
    EXPECT_EQ(*b->lists().tools().withheld("blocked"), "pinned 1, listed 2");
    ASSERT_NE(b->lists().tool_headers().dropped("bad"), nullptr);
    // A tool a later lesson lists is withheld no more.
    b->lists().take_lesson({boost::json::parse(R"([{"name":"blocked"}])").as_array(), {}, {}});
    EXPECT_EQ(b->lists().tools().withheld("blocked"), nullptr);
}

TEST(UpstreamSiblings, AHandshakesAnswerIsEveryClientsIdentityAndAJoinersToo) {
    shared_upstreams shared;
    auto cfg = gate::test::upstream_at("http://127.0.0.1:1/mcp");
    boost::asio::io_context one, two;
    auto before = upstream_client::make(two.get_executor(), cfg, shared.siblings_for(cfg));
    gate::gateway::upstream_state shaker(one.get_executor(), cfg);
    shaker.siblings = shared.siblings_for(cfg);
    auto answer =
        boost::json::parse(R"({"serverInfo":{"name":"u"},"instructions":"Be kind."})").as_object();
    gate::gateway::learn_identity(shaker, answer);
    EXPECT_EQ(shaker.identity, answer);
    EXPECT_TRUE(before->identity().empty()) << "taken on its own thread";
    EXPECT_EQ(two.poll(), 1u);
    EXPECT_EQ(before->identity(), answer);
    auto later = upstream_client::make(two.get_executor(), cfg, shared.siblings_for(cfg));
    EXPECT_EQ(later->identity(), answer) << "a client made after the handshake";
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
