#include "protocol/json_rpc.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

using namespace gate::protocol;
namespace json = boost::json;

namespace {
std::variant<message, rpc_error> of(const char* text) {
    return classify(json::parse(text));
}
} // namespace

TEST(json_rpc, classifies_requests_notifications_responses) {
    auto r = of(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    ASSERT_TRUE(std::holds_alternative<message>(r));
    EXPECT_EQ(std::get<message>(r).kind, message_kind::request);
    auto n = of(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    EXPECT_EQ(std::get<message>(n).kind, message_kind::notification);
    auto s = of(R"({"jsonrpc":"2.0","id":"x","result":{}})");
    EXPECT_EQ(std::get<message>(s).kind, message_kind::response);
}

TEST(json_rpc, refuses_invalid_messages_with_invalid_request) {
    for (const char* bad :
         {R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", R"(42)", R"({"id":1,"method":"ping"})",
          R"({"jsonrpc":"1.0","id":1,"method":"ping"})", R"({"jsonrpc":"2.0","id":1,"method":7})",
          R"({"jsonrpc":"2.0","id":{},"method":"ping"})",
          R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})",
          R"({"jsonrpc":"2.0","id":1})"}) {
        auto r = of(bad);
        ASSERT_TRUE(std::holds_alternative<rpc_error>(r)) << bad;
        EXPECT_EQ(std::get<rpc_error>(r).code, error_code::invalid_request) << bad;
    }
}

TEST(json_rpc, keeps_the_id_of_an_invalid_request_when_readable) {
    auto r = of(R"({"jsonrpc":"2.0","id":5,"method":7})");
    EXPECT_EQ(std::get<rpc_error>(r).id, 5);
}

TEST(json_rpc, builds_errors_and_results) {
    auto e = make_error(7, error_code::unknown_namespace, "nope");
    EXPECT_EQ(e.at("error").at("code"), -32043);
    EXPECT_EQ(e.at("id"), 7);
    auto ok = make_result("a", json::object{});
    EXPECT_TRUE(ok.at("result").is_object());
}

TEST(json_rpc, writes_an_id_as_the_serializer_does) {
    for (const char* text :
         {"0", "7", "-1", "9223372036854775807", "-9223372036854775808", R"("abc")",
          R"("a\"b\\c\u0001")", "18446744073709551615", "1.5", "null"}) {
        auto id = json::parse(text);
        EXPECT_EQ(id_text(id), json::serialize(id)) << text;
    }
}

TEST(json_rpc, writes_a_request_that_reads_back_as_built) {
    json::object params{{"name", "echo"},
                        {"arguments", {{"text", std::string(300, 'x') + "\"\\\n\u00e9"}}}};
    for (auto method : {std::string("tools/call"), std::string("we\"ird\\\n\u00e9")}) {
        auto text = request_text(42, method, &params);
        auto back = json::parse(text).as_object();
        EXPECT_EQ(
            back,
            (json::object{{"jsonrpc", "2.0"}, {"id", 42}, {"method", method}, {"params", params}}))
            << text;
    }
    EXPECT_EQ(json::parse(request_text(-3, "ping", nullptr)),
              (json::object{{"jsonrpc", "2.0"}, {"id", -3}, {"method", "ping"}}));
}
