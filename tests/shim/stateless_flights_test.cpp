#include "shim/stateless_flights.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

using namespace gate::shim;
using gate::protocol::message;
namespace json = boost::json;

namespace {
message flight_msg(std::string_view text) {
    return std::get<message>(gate::protocol::classify(json::parse(text)));
}
json::object obj(const std::string& text) {
    return json::parse(text).as_object();
}
constexpr auto modern_call =
    R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{)"
    R"("io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{}}}})";
} // namespace

TEST(StatelessFlights, SameClientIdsGetDistinctChildIdsAndAnswersGoBackUnderTheClientsId) {
    stateless_flights f;
    auto a = f.add(flight_msg(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"), false);
    auto b = f.add(flight_msg(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"), false);
    ASSERT_NE(a.key, b.key);
    auto child_a = obj(a.line).at("id");
    auto child_b = obj(b.line).at("id");
    EXPECT_NE(child_a, child_b);
    EXPECT_EQ(obj(a.line).at("method"), "tools/list");

    auto r = f.route(flight_msg(R"({"jsonrpc":"2.0","id":)" + json::serialize(child_b) +
                                R"(,"result":{"tools":[]}})"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->key, b.key);
    EXPECT_TRUE(r->answer);
    EXPECT_EQ(obj(r->text).at("id"), 1);
    EXPECT_EQ(obj(r->text).at("result").at("tools"), json::array{});
    // An id the shim did not send, or a string one, answers nothing.
    EXPECT_FALSE(f.route(flight_msg(R"({"jsonrpc":"2.0","id":999,"result":{}})")));
    EXPECT_FALSE(f.route(flight_msg(R"({"jsonrpc":"2.0","id":"1","result":{}})")));
    f.remove(a.key);
    EXPECT_FALSE(f.route(
        flight_msg(R"({"jsonrpc":"2.0","id":)" + json::serialize(child_a) + R"(,"result":{}})")));
    EXPECT_EQ(f.size(), 1u);
}

TEST(StatelessFlights, NumbersGoBothWaysAsWrittenWhereTheShimChangedOnlyTheId) {
    stateless_flights f;
    std::string request = R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":)"
                          R"({"name":"n","arguments":{"big":18446744073709551617,"r":6.5}}})";
    auto sent = f.add(flight_msg(request), false, request);
    EXPECT_NE(sent.line.find(R"("arguments":{"big":18446744073709551617,"r":6.5})"),
              std::string::npos)
        << sent.line;
    std::string answer = R"({"jsonrpc":"2.0","id":)" + sent.key +
                         R"(,"result":{"half":0.50,"big":18446744073709551617}})";
    auto r = f.route(flight_msg(answer), answer);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->text,
              R"({"jsonrpc":"2.0","id":"c1","result":{"half":0.50,"big":18446744073709551617}})");
}

TEST(StatelessFlights, ProgressTokensAreRewrittenAndRestored) {
    stateless_flights f;
    auto a = f.add(
        flight_msg(
            R"({"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"_meta":{"progressToken":0}}})"),
        true);
    auto b = f.add(
        flight_msg(
            R"({"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"_meta":{"progressToken":0}}})"),
        true);
    auto token_b = obj(b.line).at("params").at("_meta").at("progressToken");
    EXPECT_NE(obj(a.line).at("params").at("_meta").at("progressToken"), token_b);
    auto r = f.route(flight_msg(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{)"
                                R"("progressToken":)" +
                                json::serialize(token_b) + R"(,"progress":1}})"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->key, b.key);
    EXPECT_FALSE(r->answer);
    EXPECT_EQ(obj(r->text).at("params").at("progressToken"), 0);
    // A client that takes no event stream gets no progress (its answer is plain JSON).
    auto plain = f.add(
        flight_msg(
            R"({"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"_meta":{"progressToken":0}}})"),
        false);
    EXPECT_FALSE(f.route(
        flight_msg(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{)"
                   R"("progressToken":)" +
                   json::serialize(obj(plain.line).at("params").at("_meta").at("progressToken")) +
                   R"(,"progress":1}})")));
    // A token no flight of ours asked for goes nowhere.
    EXPECT_FALSE(f.route(flight_msg(
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x"}})")));
}

TEST(StatelessFlights, ListenNotificationsFollowTheirSubscriptionId) {
    stateless_flights f;
    auto call = f.add(flight_msg(R"({"jsonrpc":"2.0","id":"s","method":"tools/call"})"), true);
    auto l = f.add(
        flight_msg(R"({"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{}})"),
        true);
    EXPECT_TRUE(f.is_listen(l.key));
    EXPECT_FALSE(f.is_listen(call.key));
    auto child = json::serialize(obj(l.line).at("id"));
    auto r = f.route(flight_msg(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed",)"
                                R"("params":{"_meta":{"io.modelcontextprotocol/subscriptionId":)" +
                                child + "}}}"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->key, l.key);
    EXPECT_EQ(obj(r->text).at("params").at("_meta").at("io.modelcontextprotocol/subscriptionId"),
              "s");
    // The server's teardown of the listen names it as requestId.
    r = f.route(
        flight_msg(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" +
                   child + "}}"));
    ASSERT_TRUE(r);
    EXPECT_EQ(obj(r->text).at("params").at("requestId"), "s");
    // A subscription id that names a call, not a listen, goes nowhere; so does news without one.
    auto call_id = json::serialize(obj(call.line).at("id"));
    EXPECT_FALSE(
        f.route(flight_msg(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed",)"
                           R"("params":{"_meta":{"io.modelcontextprotocol/subscriptionId":)" +
                           call_id + "}}}")));
    EXPECT_FALSE(
        f.route(flight_msg(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})")));
}

TEST(StatelessFlights, LogMessagesGoToTheOldestStreamingRequestThatAskedForThem) {
    stateless_flights f;
    auto log = flight_msg(
        R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}})");
    f.add(flight_msg(R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})"), true); // asked for none
    EXPECT_FALSE(f.route(log));
    auto json_only = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{)"
                     R"("io.modelcontextprotocol/logLevel":"debug"}}})";
    f.add(flight_msg(json_only), false);
    EXPECT_FALSE(f.route(log));
    std::vector<std::string> keys;
    for (int i = 0; i < 11; ++i) // past 9: the order is numeric, not textual
        keys.push_back(f.add(flight_msg(json_only), true).key);
    EXPECT_EQ(f.route(log)->key, keys[0]);
    for (int i = 0; i < 10; ++i)
        f.remove(keys[i]);
    EXPECT_EQ(f.route(log)->key, keys[10]);
}

TEST(StatelessFlights, CancelNamesTheChildsId) {
    stateless_flights f;
    auto a = f.add(flight_msg(R"({"jsonrpc":"2.0","id":"mine","method":"tools/call"})"), true);
    auto note = obj(stateless_flights::cancel_line(a.key, "gone"));
    EXPECT_EQ(note.at("method"), "notifications/cancelled");
    EXPECT_EQ(note.at("params").at("requestId"), obj(a.line).at("id"));
    EXPECT_FALSE(note.contains("id"));
}

TEST(StatelessRequests, OnlyMessagesOfALaterRevisionAreStateless) {
    auto kind = [](std::string_view text, std::string_view header) {
        return stateless_post_kind(flight_msg(text), header);
    };
    EXPECT_EQ(kind(modern_call, "2026-07-28"), stateless_kind::request);
    EXPECT_EQ(kind(modern_call, ""), stateless_kind::request); // the header check refuses it
    EXPECT_EQ(kind(modern_call, "2099-01-01"), stateless_kind::request); // the child's to refuse
    EXPECT_EQ(kind(modern_call, "2025-11-25"), stateless_kind::none);
    EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", ""), stateless_kind::none);
    EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})", "2026-07-28"),
              stateless_kind::none);
    auto cancelled = R"({"jsonrpc":"2.0","method":"notifications/cancelled"})";
    EXPECT_EQ(kind(cancelled, "2026-07-28"), stateless_kind::notification);
    EXPECT_EQ(kind(cancelled, "2025-11-25"), stateless_kind::none);
    EXPECT_EQ(kind(cancelled, ""), stateless_kind::none);
    EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":1,"result":{}})", "2026-07-28"), stateless_kind::none);
}

TEST(StatelessRequests, HeadersMustMirrorTheBody) {
    auto m = flight_msg(modern_call);
    EXPECT_FALSE(check_stateless_headers(m, "2026-07-28", "tools/call", "echo"));
    EXPECT_FALSE(check_stateless_headers(m, "2026-07-28", "tools/call", "=?base64?ZWNobw==?="));
    for (auto [version, method, name] : std::initializer_list<std::array<std::string_view, 3>>{
             {"", "tools/call", "echo"},
             {"2026-07-29", "tools/call", "echo"},
             {"2026-07-28", "tools/list", "echo"},
             {"2026-07-28", "", "echo"},
             {"2026-07-28", "tools/call", ""},
             {"2026-07-28", "tools/call", "other"},
             {"2026-07-28", "tools/call", "=?base64?!!?="}}) {
        auto refused = check_stateless_headers(m, version, method, name);
        ASSERT_TRUE(refused) << version << " " << method << " " << name;
        EXPECT_EQ(refused->code, -32020);
    }
    // Methods without a name need no Mcp-Name.
    auto list = flight_msg(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{)"
                           R"("io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                           R"("io.modelcontextprotocol/clientCapabilities":{}}}})");
    EXPECT_FALSE(check_stateless_headers(list, "2026-07-28", "tools/list", ""));
    // The envelope's required capabilities: -32602.
    auto bare = flight_msg(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{)"
                           R"("io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
    EXPECT_EQ(check_stateless_headers(bare, "2026-07-28", "tools/list", "")->code, -32602);
    // A version the shim does not know is passed on as it is (the child answers for it).
    auto future = flight_msg(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{)"
                             R"("io.modelcontextprotocol/protocolVersion":"2099-01-01"}}})");
    EXPECT_FALSE(check_stateless_headers(future, "2099-01-01", "tools/list", ""));
}

TEST(StatelessRequests, AnswerStatusFollowsTheErrorCode) {
    EXPECT_EQ(answer_status(R"({"jsonrpc":"2.0","id":1,"result":{}})"), 200u);
    EXPECT_EQ(answer_status(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601}})"), 404u);
    EXPECT_EQ(answer_status(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022}})"), 400u);
    EXPECT_EQ(answer_status(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32020}})"), 400u);
    EXPECT_EQ(answer_status(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32023}})"), 200u);
    EXPECT_EQ(answer_status(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32603}})"), 200u);
}

TEST(RestartBudget, AtMostMaxStartsWithinTheWindow) {
    using clock = std::chrono::steady_clock;
    restart_budget b(2, std::chrono::seconds(60));
    auto t0 = clock::time_point{} + std::chrono::hours(1);
    EXPECT_TRUE(b.take(t0));
    EXPECT_TRUE(b.take(t0 + std::chrono::seconds(10)));
    EXPECT_FALSE(b.take(t0 + std::chrono::seconds(20)));
    EXPECT_EQ(b.next_possible(t0 + std::chrono::seconds(20)), t0 + std::chrono::seconds(60));
    EXPECT_TRUE(b.take(t0 + std::chrono::seconds(60)));
    EXPECT_FALSE(b.take(t0 + std::chrono::seconds(61)));
    EXPECT_TRUE(b.take(t0 + std::chrono::seconds(70)));
}
