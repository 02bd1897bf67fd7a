// A client's own traffic (gateway/mcp/client_traffic.hpp) over a fake of its services, on the
// rig's federation whose upstream clients never connected: an answer taken by the call waiting
// for input, one nobody asked for refused as the error table says, one delivered from the
// fleet's record, and a recorded one sent back to the upstream that asked (which is gone here);
// a cancellation that names nothing or finds no call accepted and dropped; logging/setLevel
// refused for a level MCP does not have, and given to every upstream for one it has.
#include "gateway/mcp/client_traffic.hpp"
#include "protocol/json_rpc.hpp"
#include "tests/support/quiet_bridges.hpp"
#include "tests/unit/stage_rig.hpp"

#include <algorithm>
#include <boost/beast/http/status.hpp>
#include <boost/json/parse.hpp>
#include <map>
#include <string>
#include <vector>

namespace gate::gateway {
namespace {

namespace json = boost::json;
namespace http = boost::beast::http;
using protocol::gateway_error;

// Answers as told and notes what it was asked, in order.
struct fake_client_services final : client_traffic_services,
                                    client_capabilities,
                                    test::quiet_bridges {
    std::vector<std::string> asked; // "<service> <argument>..."
    // What it answers.
    bool input_waits = false;
    std::map<std::string, server_request_target> recorded; // by minted id, taken once
    std::optional<transport::http_reply> fleet_reply;
    std::optional<actors::call_target> call;
    json::object client_capabilities{{"sampling", json::object{}}};

    bool answer_input(const std::string& session, const protocol::message&,
                      std::string_view) override {
        asked.push_back("answer_input " + session);
        return input_waits;
    }
    std::optional<server_request_target> take_server_request(const std::string& session,
                                                             const std::string& minted) override {
        asked.push_back("take " + session + " " + minted);
        auto at = recorded.find(minted);
        if (at == recorded.end())
            return std::nullopt;
        auto target = std::move(at->second);
        recorded.erase(at);
        return target;
    }
    boost::asio::awaitable<std::optional<transport::http_reply>>
    answer_for_fleet(const std::string& session, const protocol::message& msg, request_context&,
                     std::string_view) override {
        asked.push_back("fleet " + session + " " + json::serialize(msg.id));
        co_await test::suspend_once();
        co_return fleet_reply;
    }
    void answered_here(const std::string& session, const std::string& minted) override {
        asked.push_back("answered_here " + session + " " + minted);
    }
    boost::asio::awaitable<std::optional<actors::call_target>>
    cancelled_call(const std::string& session, const std::string& request_id) override {
        asked.push_back("cancelled " + session + " " + request_id);
        co_await test::suspend_once();
        co_return call;
    }
    json::object capabilities(const std::string& session) override {
        asked.push_back("capabilities " + session);
        return client_capabilities;
    }
    void used(const std::string& session, const std::string& upstream) override {
        asked.push_back("used " + session + " " + upstream);
    }
};

struct client_traffic_rig : test::stage_rig {
    fake_client_services services;
    client_traffic traffic{services, services, services};

    // The client's message, as it wrote it.
    transport::http_reply from_client(std::string text) {
        auto parsed = protocol::classify(json::parse(text));
        auto* msg = std::get_if<protocol::message>(&parsed);
        EXPECT_TRUE(msg) << text;
        if (!msg)
            return transport::http_reply{};
        return finish(traffic.from_client("s1", *msg, ctx, text));
    }
    json::object set_level(json::object params) {
        return finish(traffic.set_log_level("s1", 9, params, ctx));
    }
    static int code(const json::object& answer) {
        const auto* e = answer.if_contains("error");
        return e ? static_cast<int>(e->at("code").as_int64()) : 0;
    }
};

TEST_F(client_traffic_rig, an_answer_a_call_waits_for_is_taken_there) {
    services.input_waits = true;
    services.recorded["g-1"] = {"up-a", 41}; // not looked at
    auto reply = from_client(R"({"jsonrpc":"2.0","id":"g-1","result":{"action":"accept"}})");
    EXPECT_EQ(reply.status, http::status::accepted);
    EXPECT_TRUE(reply.body.empty());
    EXPECT_EQ(services.asked, std::vector<std::string>{"answer_input s1"});
    EXPECT_FALSE(ctx.upstream);
    EXPECT_EQ(ctx.audit.upstream_calls, 0);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::ok);
}

TEST_F(client_traffic_rig, an_answer_nobody_asked_for_is_refused) {
    auto reply = from_client(R"({"jsonrpc":"2.0","id":"g-7","result":{}})");
    const auto& row = protocol::describe(gateway_error::answer_not_expected);
    EXPECT_EQ(static_cast<int>(reply.status), row.http_status);
    auto body = json::parse(reply.body).as_object();
    EXPECT_EQ(code(body), row.rpc_code);
    EXPECT_NE(json::serialize(body.at("error").at("message")).find("g-7"), std::string::npos)
        << reply.body;
    EXPECT_EQ(services.asked,
              (std::vector<std::string>{"answer_input s1", "take s1 g-7", "fleet s1 \"g-7\""}));
    EXPECT_EQ(ctx.audit.outcome, row.audit_outcome);
    EXPECT_FALSE(ctx.upstream);
    EXPECT_EQ(ctx.audit.upstream_calls, 0);
}

TEST_F(client_traffic_rig, an_answer_with_an_id_gate_never_mints_is_refused_unlooked_for) {
    // Gate mints string ids: a number is no request of an upstream's.
    auto reply = from_client(R"({"jsonrpc":"2.0","id":3,"result":{}})");
    EXPECT_EQ(static_cast<int>(reply.status),
              protocol::describe(gateway_error::answer_not_expected).http_status);
    EXPECT_EQ(services.asked, std::vector<std::string>{"answer_input s1"});
}

TEST_F(client_traffic_rig, an_answer_another_instance_recorded_is_delivered_from_here) {
    services.fleet_reply = transport::http_reply::empty(http::status::accepted);
    services.fleet_reply->body = "from the fleet";
    auto reply = from_client(R"({"jsonrpc":"2.0","id":"g-2","result":{}})");
    EXPECT_EQ(reply.status, http::status::accepted);
    EXPECT_EQ(reply.body, "from the fleet");
    EXPECT_EQ(services.asked.back(), "fleet s1 \"g-2\"");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::ok);
}

TEST_F(client_traffic_rig, a_recorded_answer_goes_back_to_the_upstream_that_asked) {
    services.recorded["g-3"] = {"up-b", 41};
    auto reply = from_client(R"({"jsonrpc":"2.0","id":"g-3","result":{"temperature":0.50}})");
    EXPECT_EQ(reply.status, http::status::accepted);
    EXPECT_EQ(services.asked,
              (std::vector<std::string>{"answer_input s1", "take s1 g-3", "answered_here s1 g-3"}))
        << "the fleet is not asked about an answer recorded here";
    EXPECT_EQ(ctx.upstream, "up-b");
    EXPECT_EQ(ctx.audit.upstream_calls, 1);
    // The rig's upstream clients hold no session: the one that asked is gone.
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::upstream_down);
    EXPECT_EQ(ctx.audit.error, "the upstream session that asked is gone");
}

TEST_F(client_traffic_rig, a_recorded_answer_for_an_upstream_gone_from_the_view_is_refused) {
    services.recorded["g-4"] = {"up-retired", 41};
    auto reply = from_client(R"({"jsonrpc":"2.0","id":"g-4","result":{}})");
    EXPECT_EQ(static_cast<int>(reply.status),
              protocol::describe(gateway_error::answer_not_expected).http_status);
    EXPECT_FALSE(ctx.upstream);
    EXPECT_EQ(ctx.audit.upstream_calls, 0);
}

TEST_F(client_traffic_rig, a_cancellation_without_a_request_id_is_dropped) {
    auto reply = from_client(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"x"}})");
    EXPECT_EQ(reply.status, http::status::accepted);
    EXPECT_TRUE(services.asked.empty());
    EXPECT_FALSE(ctx.upstream);
    EXPECT_EQ(ctx.audit.upstream_calls, 0);
    // Nor without params at all.
    reply = from_client(R"({"jsonrpc":"2.0","method":"notifications/cancelled"})");
    EXPECT_EQ(reply.status, http::status::accepted);
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(client_traffic_rig, a_cancellation_of_a_call_with_no_record_is_dropped) {
    auto reply = from_client(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r-1"}})");
    EXPECT_EQ(reply.status, http::status::accepted);
    EXPECT_EQ(services.asked, std::vector<std::string>{"cancelled s1 \"r-1\""})
        << "the requestId as JSON text";
    EXPECT_FALSE(ctx.upstream);
    EXPECT_EQ(ctx.audit.upstream_calls, 0);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::ok);
}

TEST_F(client_traffic_rig, a_cancellation_of_a_recorded_call_goes_to_its_upstream) {
    services.call = actors::call_target{"up-a", 12};
    auto reply = from_client(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}})");
    EXPECT_EQ(reply.status, http::status::accepted);
    EXPECT_EQ(services.asked, std::vector<std::string>{"cancelled s1 5"});
    EXPECT_EQ(ctx.upstream, "up-a");
    EXPECT_EQ(ctx.audit.upstream_calls, 1);
}

TEST_F(client_traffic_rig, roots_news_reaches_only_upstream_sessions_that_exist) {
    auto reply = from_client(R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})");
    EXPECT_EQ(reply.status, http::status::accepted);
    EXPECT_EQ(ctx.audit.upstream_calls, 0) << "no upstream holds a session of s1";
    EXPECT_TRUE(services.asked.empty());
}

TEST_F(client_traffic_rig, a_level_mcp_does_not_have_is_invalid_params) {
    for (auto params :
         {json::object{{"level", "loud"}}, json::object{{"level", 3}}, json::object{}}) {
        fresh();
        services.asked.clear();
        auto answer = set_level(params);
        EXPECT_EQ(code(answer), protocol::describe(gateway_error::invalid_params).rpc_code)
            << json::serialize(params);
        EXPECT_EQ(answer.at("id"), 9);
        EXPECT_TRUE(services.asked.empty());
        EXPECT_EQ(ctx.audit.upstream_calls, 0);
        ctx.view->for_each_made([](auto& c) { EXPECT_FALSE(c.sessions().has_bridge("s1")); });
    }
}

TEST_F(client_traffic_rig, a_level_goes_to_every_upstream_session_of_the_client) {
    ctx.audit.upstream_calls = 1;
    auto answer = set_level({{"level", "warning"}});
    EXPECT_EQ(answer, protocol::make_result(9, json::object{}));
    ASSERT_FALSE(services.asked.empty());
    EXPECT_EQ(services.asked.front(), "capabilities s1");
    auto used = std::vector<std::string>(services.asked.begin() + 1, services.asked.end());
    std::sort(used.begin(), used.end());
    EXPECT_EQ(used, (std::vector<std::string>{"used s1 up-a", "used s1 up-b"}));
    EXPECT_EQ(ctx.audit.upstream_calls, 1 + 2);
    // Not open yet, each upstream keeps the level for its session's handshake (no I/O: the
    // rig's clients never connected).
    ctx.view->for_each_made(
        [](auto& c) { EXPECT_TRUE(c.sessions().has_bridge("s1")) << c.config().id; });
}

} // namespace
} // namespace gate::gateway
