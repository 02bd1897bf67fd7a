// The open listens of 2026-07-28 clients (gateway/mcp/listen_hub): each under its own key; a
// change reaches a listener only when its filter asks for it, stamped with the listen's id
// and written as the upstream wrote it; a closed listen hears nothing; gate's shutdown ends
// each listen with its result.
#include "gateway/mcp/listen_hub.hpp"
#include "gateway/pipeline/request_context.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using gate::gateway::listen_hub;
using gate::protocol::subscription_filter;
namespace json = boost::json;

namespace {

struct listen_hub_test : ::testing::Test {
    boost::asio::io_context io;
    listen_hub hub;

    subscription_filter tools_and(std::set<std::string> uris) {
        subscription_filter f;
        f.tools_list_changed = true;
        f.resource_subscriptions = std::move(uris);
        return f;
    }
    static json::object news(std::string_view method) {
        return json::object{{"jsonrpc", "2.0"}, {"method", method}};
    }
    static json::object updated(std::string_view uri) {
        return json::object{{"jsonrpc", "2.0"},
                            {"method", "notifications/resources/updated"},
                            {"params", {{"uri", uri}}}};
    }
};

TEST_F(listen_hub_test, each_listen_has_its_own_key) {
    EXPECT_EQ(hub.next_key(), "listen-1");
    EXPECT_EQ(hub.next_key(), "listen-2");
}

TEST_F(listen_hub_test, a_change_reaches_a_listener_that_asked_for_it_stamped_with_its_id) {
    auto out = hub.open("listen-1", 7, tools_and({"demo://a"}), io.get_executor());
    EXPECT_TRUE(hub.deliver("listen-1", news("notifications/tools/list_changed")));
    EXPECT_TRUE(hub.deliver("listen-1", updated("demo://a")));
    ASSERT_EQ(out->frames.size(), 2u);
    EXPECT_FALSE(out->answered);
    auto first = json::parse(out->frames[0]);
    EXPECT_EQ(first.at("method"), "notifications/tools/list_changed");
    EXPECT_EQ(first.at("params").at("_meta").at("io.modelcontextprotocol/subscriptionId"), 7);
    EXPECT_EQ(json::parse(out->frames[1]).at("params").at("uri"), "demo://a");
}

TEST_F(listen_hub_test, a_change_a_listener_did_not_ask_for_is_not_queued) {
    auto out = hub.open("listen-1", 7, tools_and({"demo://a"}), io.get_executor());
    // Its holder is a listener (true), but nothing is queued.
    EXPECT_TRUE(hub.deliver("listen-1", news("notifications/prompts/list_changed")));
    EXPECT_TRUE(hub.deliver("listen-1", updated("demo://b")));
    EXPECT_TRUE(out->frames.empty());
}

TEST_F(listen_hub_test, a_holder_that_is_not_a_listener_is_told_so) {
    EXPECT_FALSE(hub.deliver("session-1", news("notifications/tools/list_changed")));
    auto out = hub.open("listen-1", 7, tools_and({}), io.get_executor());
    hub.close("listen-1");
    EXPECT_FALSE(hub.deliver("listen-1", news("notifications/tools/list_changed")));
    EXPECT_TRUE(out->frames.empty());
    EXPECT_EQ(hub.size(), 0u);
}

TEST_F(listen_hub_test, an_update_goes_on_as_the_upstream_wrote_it) {
    auto out = hub.open("listen-1", "s", tools_and({"demo://a"}), io.get_executor());
    std::string source =
        R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"demo://a","n":1.50}})";
    EXPECT_TRUE(hub.deliver("listen-1", json::parse(source).as_object(), source));
    ASSERT_EQ(out->frames.size(), 1u);
    EXPECT_NE(out->frames[0].find("1.50"), std::string::npos) << out->frames[0];
    EXPECT_NE(out->frames[0].find(R"("io.modelcontextprotocol/subscriptionId":"s")"),
              std::string::npos);
}

TEST_F(listen_hub_test, a_list_change_for_all_reaches_each_listener_that_asked) {
    auto asked = hub.open("listen-1", 1, tools_and({}), io.get_executor());
    subscription_filter prompts_only;
    prompts_only.prompts_list_changed = true;
    auto other = hub.open("listen-2", 2, prompts_only, io.get_executor());
    hub.deliver_to_all(news("notifications/tools/list_changed"));
    EXPECT_EQ(asked->frames.size(), 1u);
    EXPECT_TRUE(other->frames.empty());
}

TEST_F(listen_hub_test, a_tasks_news_is_for_the_listens_holding_that_task_at_that_upstream) {
    gate::gateway::request_context asker;
    subscription_filter f;
    f.task_ids = {"t1"};
    auto mine = hub.open("listen-1", 1, f, io.get_executor(), {{"t1", "up-a"}}, &asker);
    // Another listen that asked for the same id at another upstream.
    auto theirs = hub.open("listen-2", 2, f, io.get_executor(), {{"t1", "up-b"}}, &asker);
    auto others = hub.open("listen-3", 3, tools_and({}), io.get_executor(), {}, &asker);
    auto heard = hub.task_listeners("up-a", "t1");
    ASSERT_EQ(heard.size(), 1u) << "t1 at up-b is another task";
    EXPECT_EQ(heard[0].key, "listen-1");
    EXPECT_EQ(heard[0].listener, &asker) << "who listens, for the judge";
    EXPECT_TRUE(hub.task_listeners("up-a", "t2").empty()) << "a task the listen did not ask for";
    // Once judged (gateway/mcp/listen_methods), queued as the upstream wrote it.
    const std::string text =
        R"({"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","ttlMs":60000.0}})";
    EXPECT_TRUE(hub.deliver(heard[0].key, json::parse(text).as_object(), text));
    ASSERT_EQ(mine->frames.size(), 1u);
    EXPECT_NE(mine->frames[0].find("60000.0"), std::string::npos) << "as the upstream wrote it";
    EXPECT_EQ(json::parse(mine->frames[0])
                  .at("params")
                  .at("_meta")
                  .at("io.modelcontextprotocol/subscriptionId"),
              1);
    EXPECT_TRUE(theirs->frames.empty());
    EXPECT_TRUE(others->frames.empty());
}

TEST_F(listen_hub_test, what_comes_after_a_message_being_judged_waits_behind_it) {
    auto out = hub.open("listen-1", 1, tools_and({"demo://a"}), io.get_executor());
    auto first = hub.hold_place("listen-1");
    auto second = hub.hold_place("listen-1");
    ASSERT_TRUE(first && second);
    EXPECT_TRUE(hub.deliver("listen-1", updated("demo://a")));
    hub.deliver_to_all(news("notifications/tools/list_changed"));
    EXPECT_TRUE(out->frames.empty()) << "behind two judgements still pending";
    // The second judged first: still behind the first.
    hub.fill_place("listen-1", *second, updated("demo://a"));
    EXPECT_TRUE(out->frames.empty());
    hub.fill_place("listen-1", *first, news("notifications/tools/list_changed"));
    ASSERT_EQ(out->frames.size(), 4u);
    std::vector<std::string> order;
    for (const auto& f : out->frames)
        order.emplace_back(json::parse(f).at("method").as_string());
    EXPECT_EQ(order, (std::vector<std::string>{
                         "notifications/tools/list_changed", "notifications/resources/updated",
                         "notifications/resources/updated", "notifications/tools/list_changed"}));
    EXPECT_TRUE(hub.deliver("listen-1", updated("demo://a")));
    EXPECT_EQ(out->frames.size(), 5u) << "nothing pending: at once";
}

TEST_F(listen_hub_test,
       a_judgement_that_sends_nothing_lets_the_rest_go_and_a_gone_listener_is_fine) {
    auto out = hub.open("listen-1", 1, tools_and({}), io.get_executor());
    auto place = hub.hold_place("listen-1");
    ASSERT_TRUE(place);
    hub.deliver_to_all(news("notifications/tools/list_changed"));
    hub.fill_place("listen-1", *place, std::nullopt);
    EXPECT_EQ(out->frames.size(), 1u);
    auto left = hub.hold_place("listen-1");
    hub.close("listen-1");
    hub.fill_place("listen-1", *left, news("notifications/tools/list_changed"));
    EXPECT_EQ(out->frames.size(), 1u);
    EXPECT_FALSE(hub.hold_place("listen-1")) << "not a listener";
}

TEST_F(listen_hub_test, shutdown_ends_each_listen_with_its_result) {
    auto a = hub.open("listen-1", 1, tools_and({}), io.get_executor());
    auto b = hub.open("listen-2", "two", tools_and({}), io.get_executor());
    hub.close_all();
    std::vector<std::pair<gate::transport::message_queue*, json::value>> ends{{a.get(), 1},
                                                                              {b.get(), "two"}};
    for (const auto& [out, id] : ends) {
        ASSERT_EQ(out->frames.size(), 1u);
        EXPECT_TRUE(out->answered);
        auto done = json::parse(out->frames[0]);
        EXPECT_EQ(done.at("id"), id);
        EXPECT_EQ(done.at("result").at("resultType"), "complete");
        EXPECT_EQ(done.at("result").at("_meta").at("io.modelcontextprotocol/subscriptionId"), id);
    }
}

} // namespace
