// The audit and span hand-off: what one turn of the io loop finished goes to the sinks as one
// message.
#include "gateway/operations/sink_feed.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace gate;
using gate::gateway::sink_feed;

namespace {

struct fake_sinks final : sink_feed::sinks {
    struct message {
        std::vector<gate::actors::audit_event> audit;
        std::vector<std::string> spans;
    };
    std::vector<message> sent;
    void send(std::vector<gate::actors::audit_event> audit,
              std::vector<std::string> spans) override {
        sent.push_back({std::move(audit), std::move(spans)});
    }
};

gate::actors::audit_event event(std::string method) {
    gate::actors::audit_event e;
    e.method = std::move(method);
    return e;
}

} // namespace

TEST(sink_feed, one_turns_events_go_as_one_message) {
    boost::asio::io_context io;
    fake_sinks out;
    sink_feed feed(io.get_executor(), out);
    // Three requests finish in one turn of the loop.
    boost::asio::post(io, [&] {
        feed.audit(event("tools/call"));
        feed.spans({"a", "b"});
        feed.audit(event("tools/list"));
        feed.audit(event("ping"));
        EXPECT_TRUE(out.sent.empty()); // not within the turn
    });
    io.run();
    ASSERT_EQ(out.sent.size(), 1u);
    ASSERT_EQ(out.sent[0].audit.size(), 3u);
    EXPECT_EQ(out.sent[0].audit[2].method, "ping");
    EXPECT_EQ(out.sent[0].spans, (std::vector<std::string>{"a", "b"}));
    // The next turn's event is a message of its own.
    io.restart();
    feed.audit(event("initialize"));
    io.run();
    ASSERT_EQ(out.sent.size(), 2u);
    EXPECT_EQ(out.sent[1].audit.at(0).method, "initialize");
    EXPECT_TRUE(out.sent[1].spans.empty());
}

TEST(sink_feed, a_feed_sends_what_is_queued_now_and_nothing_when_empty) {
    boost::asio::io_context io;
    fake_sinks out;
    sink_feed feed(io.get_executor(), out);
    feed.spans({"s"});
    feed.feed(); // the shutdown's flush does not wait for the turn
    ASSERT_EQ(out.sent.size(), 1u);
    io.run(); // the posted feed finds nothing left
    EXPECT_EQ(out.sent.size(), 1u);
    feed.feed();
    EXPECT_EQ(out.sent.size(), 1u);
}
