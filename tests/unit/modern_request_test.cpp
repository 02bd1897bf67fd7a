// The checks of a 2026-07-28 request: envelope and mirrored headers.
#include "protocol/json_rpc.hpp"
#include "protocol/modern_request.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate::protocol;
namespace json = boost::json;

namespace {
json::object params(std::string extra = "") {
    return json::parse(R"({)" + extra +
                       R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                       R"("io.modelcontextprotocol/clientCapabilities":{}}})")
        .as_object();
}
} // namespace

TEST(modern_request, a_well_formed_request_passes) {
    auto p = params(R"("name":"a__echo",)");
    EXPECT_FALSE(check_modern_request("tools/call", &p, {"2026-07-28", "tools/call", "a__echo"}));
    auto l = params();
    EXPECT_FALSE(check_modern_request("tools/list", &l, {"2026-07-28", "tools/list", ""}));
}

TEST(modern_request, each_mismatch_is_named) {
    auto p = params(R"("name":"a__echo",)");
    auto r = check_modern_request("tools/call", &p, {"2025-11-25", "tools/call", "a__echo"});
    ASSERT_TRUE(r);
    EXPECT_EQ(describe(r->error).rpc_code, modern_code::header_mismatch);
    EXPECT_NE(r->message.find("MCP-Protocol-Version"), std::string::npos);
    r = check_modern_request("tools/call", &p, {"2026-07-28", "tools/list", "a__echo"});
    ASSERT_TRUE(r);
    EXPECT_NE(r->message.find("Mcp-Method"), std::string::npos);
    r = check_modern_request("tools/call", &p, {"2026-07-28", "tools/call", ""});
    ASSERT_TRUE(r);
    EXPECT_NE(r->message.find("Mcp-Name"), std::string::npos);
    auto read = params(R"("uri":"file:///x",)");
    EXPECT_FALSE(check_modern_request("resources/read", &read,
                                      {"2026-07-28", "resources/read", "file:///x"}));
    r = check_modern_request("resources/read", &read,
                             {"2026-07-28", "resources/read", "file:///y"});
    ASSERT_TRUE(r);
    EXPECT_EQ(describe(r->error).http_status, 400);
}

TEST(modern_request, a_task_method_mirrors_its_task_id) {
    auto p = params(R"("taskId":"t-1",)");
    EXPECT_FALSE(check_modern_request("tasks/get", &p, {"2026-07-28", "tasks/get", "t-1"}));
    auto r = check_modern_request("tasks/cancel", &p, {"2026-07-28", "tasks/cancel", "t-2"});
    ASSERT_TRUE(r);
    EXPECT_EQ(describe(r->error).rpc_code, modern_code::header_mismatch);
}

TEST(modern_request, envelope_fields_are_required) {
    auto none = json::object{};
    auto r = check_modern_request("tools/list", &none, {"2026-07-28", "tools/list", ""});
    ASSERT_TRUE(r);
    EXPECT_EQ(describe(r->error).rpc_code, error_code::invalid_params);
    auto no_caps =
        json::parse(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}})")
            .as_object();
    r = check_modern_request("tools/list", &no_caps, {"2026-07-28", "tools/list", ""});
    ASSERT_TRUE(r);
    EXPECT_NE(r->message.find("clientCapabilities"), std::string::npos);
    auto future = json::parse(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01",)"
                              R"("io.modelcontextprotocol/clientCapabilities":{}}})")
                      .as_object();
    r = check_modern_request("tools/list", &future, {"2099-01-01", "tools/list", ""});
    ASSERT_TRUE(r);
    EXPECT_EQ(describe(r->error).rpc_code, modern_code::unsupported_protocol_version);
    EXPECT_EQ(r->data.at("requested"), "2099-01-01");
}

TEST(modern_request, a_header_that_does_not_mirror_the_version_is_wrong_before_the_version) {
    auto future = json::parse(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0",)"
                              R"("io.modelcontextprotocol/clientCapabilities":{}}})")
                      .as_object();
    auto r =
        check_modern_request("server/discover", &future, {"2026-07-28", "server/discover", ""});
    ASSERT_TRUE(r);
    EXPECT_EQ(describe(r->error).rpc_code, modern_code::header_mismatch);
    EXPECT_EQ(describe(r->error).http_status, 400);
}

TEST(modern_request, the_envelope_leaves_a_request_to_an_earlier_revision) {
    auto p = json::parse(R"({"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":)"
                         R"("2026-07-28","io.modelcontextprotocol/clientCapabilities":{},)"
                         R"("io.modelcontextprotocol/clientInfo":{},)"
                         R"("io.modelcontextprotocol/logLevel":"info","progressToken":7}})")
                 .as_object();
    remove_envelope(p);
    EXPECT_EQ(p, json::parse(R"({"name":"a","_meta":{"progressToken":7}})").as_object());
    auto bare = json::parse(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}})")
                    .as_object();
    remove_envelope(bare);
    EXPECT_TRUE(bare.empty());
    auto none = json::object{{"name", "a"}};
    remove_envelope(none);
    EXPECT_EQ(none.size(), 1u);
}

TEST(modern_request, header_values_decode_from_base64) {
    EXPECT_EQ(decode_header_value("plain"), "plain");
    EXPECT_EQ(decode_header_value("=?base64?w6l0w6k=?="), "\xc3\xa9t\xc3\xa9"); // "été"
    EXPECT_EQ(decode_header_value("=?base64?YWI=?="), "ab");
    EXPECT_EQ(decode_header_value("=?base64?YWJj?="), "abc");
    EXPECT_FALSE(decode_header_value("=?base64?abc?="));  // not a multiple of 4
    EXPECT_FALSE(decode_header_value("=?base64?a!c=?=")); // not base64
}

TEST(modern_request, a_log_level_in_meta_must_be_one_of_the_eight) {
    auto ok = json::parse(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                          R"("io.modelcontextprotocol/clientCapabilities":{},)"
                          R"("io.modelcontextprotocol/logLevel":"warning"}})")
                  .as_object();
    EXPECT_FALSE(check_modern_request("tools/list", &ok, {"2026-07-28", "tools/list", ""}));
    for (auto bad : {R"("loud")", "3", "null"}) {
        auto p = json::parse(std::string(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":)"
                                         R"("2026-07-28","io.modelcontextprotocol/)"
                                         R"(clientCapabilities":{},"io.modelcontextprotocol/)"
                                         R"(logLevel":)") +
                             bad + "}}")
                     .as_object();
        auto r = check_modern_request("tools/list", &p, {"2026-07-28", "tools/list", ""});
        ASSERT_TRUE(r) << bad;
        EXPECT_EQ(describe(r->error).rpc_code, -32602);
        EXPECT_EQ(describe(r->error).http_status, 400);
        EXPECT_NE(r->message.find("logLevel must be one of debug"), std::string::npos);
    }
    EXPECT_TRUE(is_log_level("emergency"));
    EXPECT_FALSE(is_log_level("Emergency"));
}

TEST(modern_request, a_call_streams_log_messages_only_at_or_above_the_level_it_asked_for) {
    auto log = [](std::string level) {
        return json::object{{"jsonrpc", "2.0"},
                            {"method", "notifications/message"},
                            {"params", {{"level", level}, {"data", "x"}}}};
    };
    const json::object progress{{"jsonrpc", "2.0"},
                                {"method", "notifications/progress"},
                                {"params", {{"progressToken", 1}, {"progress", 1}}}};
    // No logLevel: no log messages at all (the revision), everything else as before.
    EXPECT_FALSE(wants_message(log("emergency"), std::nullopt));
    EXPECT_TRUE(wants_message(progress, std::nullopt));
    // A level: that one and the more severe.
    EXPECT_FALSE(wants_message(log("info"), "warning"));
    EXPECT_TRUE(wants_message(log("warning"), "warning"));
    EXPECT_TRUE(wants_message(log("error"), "warning"));
    EXPECT_TRUE(wants_message(log("debug"), "debug"));
    EXPECT_FALSE(wants_message(log("critical"), "alert"));
    // A level that is none of the eight is not dropped for someone who wants logs.
    EXPECT_TRUE(wants_message(log("verbose"), "emergency"));
    EXPECT_TRUE(wants_message(progress, "emergency"));
}

TEST(modern_request, gate_answers_what_a_2026_client_cannot_be_asked) {
    auto request = [](std::string method) {
        return json::object{{"jsonrpc", "2.0"}, {"id", 4}, {"method", method}, {"params", {}}};
    };
    const json::object none;
    const json::object sampling{{"sampling", json::object{}}};
    // A ping is answered empty, whatever the client declared.
    auto pong = answer_for_client(request("ping"), "tools/call", sampling);
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->at("id"), 4);
    EXPECT_EQ(pong->at("result"), json::object{});
    // A declared capability: the client is asked.
    EXPECT_FALSE(answer_for_client(request("sampling/createMessage"), "tools/call", sampling));
    // Undeclared: -32601 naming the capability.
    auto refused = answer_for_client(request("sampling/createMessage"), "prompts/get", none);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->at("error").at("code"), -32601);
    EXPECT_EQ(refused->at("error").at("message"),
              "the client declared no sampling capability for sampling/createMessage");
    EXPECT_TRUE(answer_for_client(request("elicitation/create"), "resources/read", sampling));
    EXPECT_TRUE(answer_for_client(request("roots/list"), "tools/call", sampling));
    // Anything else is not asked of such a client at all.
    auto other = answer_for_client(request("vendor/ask"), "tools/call", sampling);
    ASSERT_TRUE(other);
    EXPECT_EQ(other->at("error").at("code"), -32601);
    // Only a call of tools/call, prompts/get or resources/read may return input_required.
    auto during =
        answer_for_client(request("sampling/createMessage"), "completion/complete", sampling);
    ASSERT_TRUE(during);
    EXPECT_EQ(during->at("error").at("message"),
              "sampling/createMessage cannot be asked of a 2026-07-28 client during "
              "completion/complete");
    EXPECT_FALSE(answer_for_client(request("sampling/createMessage"), "prompts/get", sampling));
    // A notification is not a request.
    EXPECT_FALSE(answer_for_client(json::object{{"method", "ping"}}, "tools/call", none));
}

TEST(modern_request, the_named_value_is_the_mirrored_member_when_a_string) {
    auto p = json::parse(R"({"name":"echo","uri":"file:///a","taskId":"t1"})").as_object();
    EXPECT_EQ(named_value("tools/call", &p), "echo");
    EXPECT_EQ(named_value("resources/read", &p), "file:///a");
    EXPECT_EQ(named_value("tasks/get", &p), "t1");
    EXPECT_EQ(named_value("tools/list", &p), "");
    EXPECT_EQ(named_value("tools/call", nullptr), "");
    auto odd = json::parse(R"({"name":7})").as_object();
    EXPECT_EQ(named_value("tools/call", &odd), "");
}

TEST(modern_request, the_tasks_extension_is_required_for_task_methods_and_task_listens) {
    auto declared = json::parse(R"({"_meta":{"io.modelcontextprotocol/clientCapabilities":)"
                                R"({"extensions":{"io.modelcontextprotocol/tasks":{}}}}})")
                        .as_object();
    auto plain = params(R"("taskId":"t1",)");
    for (auto m : {"tasks/get", "tasks/update", "tasks/cancel"}) {
        auto missing = missing_capabilities(m, &plain);
        ASSERT_TRUE(missing) << m;
        EXPECT_EQ(json::value(*missing),
                  json::parse(R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})"));
        EXPECT_FALSE(missing_capabilities(m, &declared)) << m;
    }
    EXPECT_FALSE(missing_capabilities("tasks/get", nullptr) == std::nullopt);
    auto listen_tasks = params(R"("notifications":{"taskIds":["t1"]},)");
    auto listen_lists = params(R"("notifications":{"toolsListChanged":true},)");
    EXPECT_TRUE(missing_capabilities("subscriptions/listen", &listen_tasks));
    EXPECT_FALSE(missing_capabilities("subscriptions/listen", &listen_lists));
    EXPECT_FALSE(missing_capabilities("tools/call", &plain));
}

TEST(modern_request, a_version_refusal_that_supports_2026_07_28_is_asked_again) {
    auto answer = [](std::string_view text) { return json::parse(text).as_object(); };
    EXPECT_TRUE(offers_modern_version(answer(
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no","data":{"supported":["2025-11-25","2026-07-28"]}}})")));
    EXPECT_FALSE(offers_modern_version(answer(
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no","data":{"supported":["2025-11-25"]}}})")));
    EXPECT_FALSE(offers_modern_version(
        answer(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no"}})")));
    EXPECT_FALSE(offers_modern_version(answer(
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no","data":{"supported":["2026-07-28"]}}})")));
    EXPECT_FALSE(offers_modern_version(answer(R"({"jsonrpc":"2.0","id":1,"result":{}})")));
}
