// The recording format (protocol/recording): lines written and read back, what is redacted,
// the timestamps, and a clear reason for every line the reader refuses.
#include "protocol/recording.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

using namespace gate::protocol;
namespace json = boost::json;

namespace {
std::chrono::system_clock::time_point at(std::string_view text) {
    return *parse_micro_timestamp(text);
}
} // namespace

TEST(recording, timestamps_keep_microseconds_both_ways) {
    auto t = at("2026-11-24T10:00:00.123456Z");
    EXPECT_EQ(micro_timestamp(t), "2026-11-24T10:00:00.123456Z");
    EXPECT_EQ(std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count(),
              1795514400123456);
    EXPECT_EQ(micro_timestamp(at("2028-02-29T23:59:59.999999Z")), "2028-02-29T23:59:59.999999Z");
    for (auto bad :
         {"2026-11-24T10:00:00.123Z", "2026-13-24T10:00:00.123456Z", "2026-11-24 10:00:00.123456Z",
          "1969-12-31T23:59:59.000000Z", "2478-11-24T10:00:00.123456Z", ""})
        EXPECT_FALSE(parse_micro_timestamp(bad)) << bad;
}

TEST(recording, members_named_like_secrets_are_redacted_at_any_depth) {
    for (auto name : {"token", "access_token", "apiKey", "API-KEY", "password", "client_secret",
                      "Authorization", "cookie", "credentials", "refreshToken"})
        EXPECT_TRUE(redacted_member(name)) << name;
    for (auto name : {"message", "name", "uri", "cursor", "key", "tokens_used_estimate_x"})
        EXPECT_EQ(redacted_member(name), std::string_view(name).find("token") != std::string::npos)
            << name;
    auto v = redact(json::parse(
        R"({"name":"login","arguments":{"user":"a","password":"p","nested":[{"apiKey":"k","n":1}]}})"));
    EXPECT_EQ(
        json::serialize(v),
        R"({"name":"login","arguments":{"user":"a","password":"[redacted]","nested":[{"apiKey":"[redacted]","n":1}]}})");
}

TEST(recording, a_request_line_round_trips) {
    recorded_request r;
    r.seq = 7;
    r.at = at("2026-11-24T10:00:00.000001Z");
    r.session = "3f9a00aa11bb22cc";
    r.version = "2025-11-25";
    r.principal = recorded_principal{"alice", "https://idp", {"eng"}, {{"tier", "gold"}}};
    r.message = json::parse(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}})");
    r.outcome = "denied";
    r.upstream = "a";
    auto line = to_json_line(r);
    EXPECT_EQ(line.back(), '\n');
    auto back = std::get<recorded_request>(std::get<recorded_line>(parse_line(line)));
    EXPECT_EQ(back.seq, 7u);
    EXPECT_EQ(back.at, r.at);
    EXPECT_EQ(back.session, r.session);
    EXPECT_EQ(back.version, r.version);
    EXPECT_EQ(back.principal->sub, "alice");
    EXPECT_EQ(back.principal->groups, std::vector<std::string>{"eng"});
    EXPECT_EQ(back.principal->claims, r.principal->claims);
    EXPECT_EQ(back.message, r.message);
    EXPECT_EQ(back.outcome, "denied");
    EXPECT_EQ(to_json_line(back), line);
}

TEST(recording, answer_lines_hold_a_reply_or_a_failure) {
    recorded_answer a;
    a.request = 7;
    a.at = at("2026-11-24T10:00:00.000002Z");
    a.upstream = "a";
    a.method = "tools/call";
    a.params = {{"name", "echo"}};
    a.reply = {{"result", json::object{{"content", json::array{}}}}};
    auto back = std::get<recorded_answer>(std::get<recorded_line>(parse_line(to_json_line(a))));
    EXPECT_EQ(back.reply, a.reply);
    EXPECT_FALSE(back.failed);
    a.reply = {};
    a.failed = recorded_answer::failure{"http_status", 503, "upstream answered HTTP 503"};
    back = std::get<recorded_answer>(std::get<recorded_line>(parse_line(to_json_line(a))));
    ASSERT_TRUE(back.failed);
    EXPECT_EQ(back.failed->kind, "http_status");
    EXPECT_EQ(back.failed->status, 503);
}

TEST(recording, lines_the_reader_refuses_say_why) {
    auto why = [](std::string_view line) { return std::get<std::string>(parse_line(line)); };
    EXPECT_EQ(why("[1]"), "a line is one JSON object");
    EXPECT_EQ(why(R"({"kind":"other"})"), R"("kind" must be "request" or "answer")");
    EXPECT_EQ(why(R"({"kind":"request","at":"2026-11-24T10:00:00.000001Z","message":{}})"),
              R"(a request line needs a positive "seq")");
    EXPECT_EQ(why(R"({"kind":"request","seq":1,"at":"yesterday","message":{}})"),
              R"(a request line needs "at", an RFC 3339 UTC timestamp)");
    EXPECT_EQ(
        why(R"({"kind":"request","seq":1,"at":"2026-11-24T10:00:00.000001Z","message":{},"principal":{"sub":"a"}})"),
        R"("principal" needs "sub" and "iss" strings)");
    EXPECT_EQ(
        why(R"({"kind":"answer","request":1,"at":"2026-11-24T10:00:00.000001Z","upstream":"a","method":"m"})"),
        R"(an answer line has either "reply" or "failure")");
    EXPECT_EQ(
        why(R"({"kind":"answer","request":1,"at":"2026-11-24T10:00:00.000001Z","upstream":"a","method":"m","reply":{"result":1,"error":2}})"),
        R"("reply" holds either "result" or "error")");
    EXPECT_TRUE(why("{").starts_with("not JSON: "));
}
