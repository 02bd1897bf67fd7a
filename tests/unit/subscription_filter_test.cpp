// The subscriptions/listen filter: parsing (every bad member named), what a server honours,
// what passes, and the subscription id stamped on and stripped off notifications.
#include "protocol/subscription_filter.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

using namespace gate::protocol;
namespace json = boost::json;

namespace {
std::variant<subscription_filter, std::string> parse(std::string_view params) {
    auto v = json::parse(params);
    return parse_subscription_filter(&v.as_object());
}
} // namespace

TEST(subscription_filter, parses_what_a_listener_asks_for) {
    auto got = parse(R"({"notifications":{"toolsListChanged":true,"promptsListChanged":false,
        "resourceSubscriptions":["demo://a","demo://b","demo://a"],"futureThing":1}})");
    ASSERT_TRUE(std::holds_alternative<subscription_filter>(got));
    auto& f = std::get<subscription_filter>(got);
    EXPECT_TRUE(f.tools_list_changed);
    EXPECT_FALSE(f.prompts_list_changed);
    EXPECT_EQ(f.resource_subscriptions, (std::set<std::string>{"demo://a", "demo://b"}));
    EXPECT_EQ(json::serialize(f.to_json()),
              R"({"toolsListChanged":true,"resourceSubscriptions":["demo://a","demo://b"]})");
}

TEST(subscription_filter, names_the_member_that_is_wrong) {
    auto error = [](std::string_view p) {
        auto got = parse(p);
        return std::holds_alternative<std::string>(got) ? std::get<std::string>(got) : "";
    };
    EXPECT_EQ(error(R"({})"), "params.notifications must be an object");
    EXPECT_EQ(error(R"({"notifications":[]})"), "params.notifications must be an object");
    EXPECT_EQ(error(R"({"notifications":{"toolsListChanged":"yes"}})"),
              "params.notifications.toolsListChanged must be a boolean");
    EXPECT_NE(error(R"({"notifications":{"resourceSubscriptions":"demo://a"}})")
                  .find("resourceSubscriptions must be an array"),
              std::string::npos);
    EXPECT_NE(
        error(R"({"notifications":{"resourceSubscriptions":[1]}})").find("non-empty URI strings"),
        std::string::npos);
    EXPECT_EQ(parse_subscription_filter(nullptr), (std::variant<subscription_filter, std::string>(
                                                      "params.notifications must be an object")));
}

TEST(subscription_filter, a_server_honours_only_what_it_can_deliver) {
    subscription_filter asked;
    asked.tools_list_changed = asked.prompts_list_changed = asked.resources_list_changed = true;
    asked.resource_subscriptions = {"demo://a"};
    auto caps = json::parse(R"({"tools":{"listChanged":true},"resources":{"subscribe":true}})");
    auto honoured = asked.honoured_by(caps.as_object());
    EXPECT_TRUE(honoured.tools_list_changed);
    EXPECT_FALSE(honoured.prompts_list_changed);
    EXPECT_FALSE(honoured.resources_list_changed);
    EXPECT_EQ(honoured.resource_subscriptions, asked.resource_subscriptions);
    EXPECT_TRUE(asked.honoured_by(json::object{}).empty());
}

TEST(subscription_filter, lets_through_only_the_changes_asked_for) {
    subscription_filter f;
    f.prompts_list_changed = true;
    f.resource_subscriptions = {"demo://a"};
    EXPECT_TRUE(f.accepts("notifications/prompts/list_changed", ""));
    EXPECT_FALSE(f.accepts("notifications/tools/list_changed", ""));
    EXPECT_TRUE(f.accepts("notifications/resources/updated", "demo://a"));
    EXPECT_FALSE(f.accepts("notifications/resources/updated", "demo://b"));
    EXPECT_FALSE(f.accepts("notifications/message", ""));
}

TEST(subscription_filter, task_ids_are_the_tasks_extensions_member) {
    auto got = parse(R"({"notifications":{"taskIds":["t2","t1","t2"]}})");
    ASSERT_TRUE(std::holds_alternative<subscription_filter>(got));
    auto& f = std::get<subscription_filter>(got);
    EXPECT_EQ(f.task_ids, (std::set<std::string>{"t1", "t2"}));
    EXPECT_FALSE(f.empty());
    EXPECT_EQ(json::serialize(f.to_json()), R"({"taskIds":["t1","t2"]})");
    EXPECT_TRUE(f.accepts("notifications/tasks", "t1"));
    EXPECT_FALSE(f.accepts("notifications/tasks", "t3"));
    EXPECT_FALSE(f.accepts("notifications/resources/updated", "t1"));
    // Honoured only by a server that offers the extension.
    EXPECT_TRUE(f.honoured_by(json::object{}).task_ids.empty());
    auto caps = json::parse(R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})");
    EXPECT_EQ(f.honoured_by(caps.as_object()).task_ids, f.task_ids);
    // What a notification is filtered on.
    auto n = json::parse(R"({"method":"notifications/tasks","params":{"taskId":"t1"}})");
    EXPECT_EQ(notification_subject(n.as_object()), "t1");
    auto u = json::parse(R"({"method":"notifications/resources/updated","params":{"uri":"x"}})");
    EXPECT_EQ(notification_subject(u.as_object()), "x");
    auto other = json::parse(R"({"method":"notifications/message","params":{"uri":"x"}})");
    EXPECT_EQ(notification_subject(other.as_object()), "");
}

TEST(subscription_filter, task_ids_must_be_a_bounded_array_of_ids) {
    auto error = [](std::string p) {
        auto got = parse(p);
        return std::holds_alternative<std::string>(got) ? std::get<std::string>(got) : "";
    };
    EXPECT_NE(error(R"({"notifications":{"taskIds":"t1"}})").find("taskIds must be an array"),
              std::string::npos);
    EXPECT_NE(error(R"({"notifications":{"taskIds":[""]}})").find("non-empty task id"),
              std::string::npos);
    std::string many = R"({"notifications":{"taskIds":[)";
    for (std::size_t i = 0; i <= max_listened_tasks; ++i)
        many += (i ? "," : "") + std::string("\"t") + std::to_string(i) + "\"";
    EXPECT_NE(error(many + "]}}").find("names more than 256 tasks"), std::string::npos);
}

TEST(subscription_filter, stamps_and_strips_the_subscription_id) {
    auto n = json::parse(R"({"jsonrpc":"2.0","method":"notifications/resources/updated",
        "params":{"uri":"demo://a","_meta":{"traceparent":"t"}}})")
                 .as_object();
    stamp_subscription(n, "listen:1");
    EXPECT_EQ(json::serialize(n["params"].as_object()["_meta"]),
              R"({"traceparent":"t","io.modelcontextprotocol/subscriptionId":"listen:1"})");
    strip_subscription(n);
    EXPECT_EQ(json::serialize(n["params"]), R"({"uri":"demo://a","_meta":{"traceparent":"t"}})");
    auto bare = json::parse(R"({"method":"notifications/tools/list_changed"})").as_object();
    stamp_subscription(bare, 7);
    strip_subscription(bare);
    EXPECT_EQ(json::serialize(bare),
              R"({"method":"notifications/tools/list_changed","params":{}})");
}
