// An upstream's list_changed, coalesced per kind over an interval before every client hears it.
#include "gateway/mcp/list_changed_feed.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using gate::gateway::list_changed_feed;

namespace {

struct fake_audience final : list_changed_feed::audience {
    std::vector<std::string> heard;
    void broadcast(const boost::json::object& news) override {
        EXPECT_EQ(news.at("jsonrpc"), "2.0");
        heard.emplace_back(news.at("method").as_string());
    }
};

constexpr auto tools = "notifications/tools/list_changed";
constexpr auto prompts = "notifications/prompts/list_changed";

} // namespace

TEST(list_changed_feed, one_kind_announced_many_times_in_an_interval_goes_out_once) {
    boost::asio::io_context io;
    fake_audience clients;
    list_changed_feed feed(io.get_executor(), clients, std::chrono::steady_clock::duration::zero());
    for (int i = 0; i < 5; ++i) // each of an upstream's sessions says it
        feed.announce(tools);
    feed.announce(prompts);
    feed.announce(tools);
    EXPECT_TRUE(clients.heard.empty()); // not before the interval ends
    io.run();
    EXPECT_EQ(clients.heard, (std::vector<std::string>{prompts, tools}));
    // A change after the interval is news again.
    io.restart();
    feed.announce(tools);
    io.run();
    EXPECT_EQ(clients.heard, (std::vector<std::string>{prompts, tools, tools}));
}

TEST(list_changed_feed, nothing_goes_out_before_the_interval_ends) {
    boost::asio::io_context io;
    fake_audience clients;
    list_changed_feed feed(io.get_executor(), clients, std::chrono::hours(1));
    feed.announce(tools);
    feed.announce(tools);
    io.poll();
    EXPECT_TRUE(clients.heard.empty());
}
