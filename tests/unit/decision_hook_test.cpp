// The decision hook's words (policy/decision_hook): the description gate posts, what an
// answer means (and every kind of nonsense refused with what was wrong), and the verdicts
// remembered for their lifetime with time passed in.
#include "policy/decision_hook.hpp"
#include "policy/subjects_select.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace gate {
namespace decision_hook_test {

namespace json = boost::json;
using namespace std::chrono_literals;

TEST(DecisionHook, TheDescriptionNamesWhoAsksWhatAndOnlyTheContentAskedFor) {
    policy::principal alice{"alice", "https://idp", {"eng"}, {{"scope", "files:read files:write"}}};
    json::object args{{"path", "/srv/a"}};
    policy::hook_question q;
    q.who = &alice;
    q.tenant = "acme";
    q.method = "tools/call";
    q.name = "f__read";
    q.upstream = "files";
    q.upstream_name = "read";
    q.rule = "eng";
    auto bare = describe(q);
    EXPECT_EQ(bare.find("arguments"), std::string::npos) << bare;
    q.arguments = &args;
    auto d = json::parse(describe(q)).as_object();
    EXPECT_EQ(d.at("version"), 1);
    EXPECT_EQ(d.at("stage"), "call");
    EXPECT_EQ(d.at("principal").at("subject"), "alice");
    EXPECT_EQ(d.at("principal").at("issuer"), "https://idp");
    EXPECT_EQ(d.at("principal").at("groups"), json::array{"eng"});
    EXPECT_EQ(d.at("principal").at("scopes"), (json::array{"files:read", "files:write"}));
    EXPECT_EQ(d.at("tenant"), "acme");
    EXPECT_EQ(d.at("method"), "tools/call");
    EXPECT_EQ(d.at("name"), "f__read");
    EXPECT_EQ(d.at("upstream"), "files");
    EXPECT_EQ(d.at("upstreamName"), "read");
    EXPECT_EQ(d.at("rule"), "eng");
    EXPECT_EQ(d.at("arguments"), args);
    EXPECT_FALSE(d.contains("result"));
    EXPECT_FALSE(d.contains("isError"));
}

TEST(DecisionHook, AnAnonymousCallerTheDefaultDecisionAndAResultAreSaidSo) {
    json::value result = json::object{{"content", json::array{}}};
    policy::hook_question q;
    q.stage = policy::hook_stage::result;
    q.method = "prompts/get";
    q.result = &result;
    q.is_error = true;
    auto d = json::parse(describe(q)).as_object();
    EXPECT_EQ(d.at("stage"), "result");
    EXPECT_TRUE(d.at("principal").is_null());
    EXPECT_TRUE(d.at("tenant").is_null());
    EXPECT_TRUE(d.at("rule").is_null());
    EXPECT_EQ(d.at("isError"), true);
    EXPECT_EQ(d.at("result"), result);
    EXPECT_EQ(hook_stage_name(policy::hook_stage::server_request), "serverRequest");
}

// The description as gate wrote it before it was written as text: an object serialized by
// Boost.JSON. The text must stay the same byte for byte (it is the wire format, and the key of
// the answers remembered).
std::string described_as_an_object(const policy::hook_question& q) {
    auto text = [](std::optional<std::string_view> s) {
        return s ? json::value(json::string(*s)) : json::value(nullptr);
    };
    json::value who = nullptr;
    if (q.who) {
        json::array groups, scopes;
        for (const auto& g : q.who->groups)
            groups.emplace_back(g);
        for (const auto& sc : held_scopes(*q.who))
            scopes.emplace_back(sc);
        who = json::object{{"issuer", q.who->issuer},
                           {"subject", q.who->subject},
                           {"groups", std::move(groups)},
                           {"scopes", std::move(scopes)}};
    }
    json::object d;
    d["version"] = 1;
    d["stage"] = hook_stage_name(q.stage);
    d["principal"] = who;
    d["tenant"] = text(q.tenant);
    d["method"] = q.method;
    d["name"] = q.name;
    d["upstream"] = q.upstream;
    d["upstreamName"] = q.upstream_name;
    d["rule"] = text(q.rule);
    if (q.arguments)
        d["arguments"] = *q.arguments;
    if (q.is_error)
        d["isError"] = *q.is_error;
    if (q.result)
        d["result"] = *q.result;
    return json::serialize(d);
}

TEST(DecisionHook, TheDescriptionIsWrittenExactlyAsTheSerializerWroteItEscapesIncluded) {
    // Quotes, backslashes, every control character, DEL, multi-byte characters and U+2028, in
    // strings longer and shorter than 16 bytes.
    std::string awkward = "a\"b\\c/d\x7f\xC3\xA9\xE2\x80\xA8 a long tail past sixteen bytes";
    for (char c = 1; c < 0x20; ++c)
        awkward += c;
    std::string nul("x\0y", 3);
    policy::principal alice{
        "sub \"quoted\"",
        "https://idp.example/realms/\u00e9",
        {"eng", awkward, ""},
        {{"scope", "files:read files:read x\ty"}, {"scp", json::array{"a", 7, "b"}}}};
    json::object args{
        {"path", awkward}, {"n", 1.5}, {"deep", json::object{{"k", json::array{1, nullptr}}}}};
    json::value result = json::object{{"content", json::array{json::object{{"text", nul}}}}};
    policy::hook_question q;
    q.who = &alice;
    q.tenant = awkward;
    q.method = "tools/call";
    q.name = nul;
    q.upstream = "files";
    q.upstream_name = awkward;
    q.rule = "";
    EXPECT_EQ(describe(q), described_as_an_object(q));
    q.arguments = &args;
    q.is_error = false;
    EXPECT_EQ(describe(q), described_as_an_object(q));
    q.stage = policy::hook_stage::result;
    q.is_error = true;
    q.result = &result;
    EXPECT_EQ(describe(q), described_as_an_object(q));
    policy::hook_question anonymous;
    anonymous.stage = policy::hook_stage::server_request;
    anonymous.method = "sampling/createMessage";
    EXPECT_EQ(describe(anonymous), described_as_an_object(anonymous));
    EXPECT_EQ(describe(anonymous),
              R"({"version":1,"stage":"serverRequest","principal":null,"tenant":null,)"
              R"("method":"sampling/createMessage","name":"","upstream":"","upstreamName":"",)"
              R"("rule":null})");
}

TEST(DecisionHook, ArgumentsAndAResultAreDescribedAsTheirWriterWroteThem) {
    // The client's params text, the arguments after other members (what follows is ignored).
    std::string params = R"({"name":"t","arguments":{"n":1e400, "half":0.50},"_meta":{}})";
    auto args = json::parse(R"({"n":1e400,"half":0.50})").as_object();
    std::string answer =
        R"({"jsonrpc":"2.0","id":1,"result":{"big":123456789012345678901234567890}})";
    auto result = json::parse(answer).at("result");
    policy::hook_question q;
    q.method = "tools/call";
    q.arguments = &args;
    q.result = &result;
    auto unsourced = describe(q);
    EXPECT_NE(unsourced.find(R"("arguments":{"n":1e999,"half":5E-1})"), std::string::npos)
        << "without its text, still JSON a hook can parse: " << unsourced;
    q.arguments_source = std::string_view(params).substr(params.find("{\"n\""));
    q.result_source = std::string_view(answer).substr(answer.find("{\"big\""));
    auto d = describe(q);
    EXPECT_NE(d.find(R"("arguments":{"n":1e400, "half":0.50})"), std::string::npos) << d;
    EXPECT_NE(d.find(R"("result":{"big":123456789012345678901234567890})"), std::string::npos) << d;
    boost::system::error_code ec;
    json::parse(d, ec);
    EXPECT_FALSE(ec) << d;
}

TEST(DecisionHook, AnAnswerIsAllowOrDenyWithAnOptionalReason) {
    auto allow = policy::read_hook_answer(200, R"({"decision":"allow"})");
    ASSERT_TRUE(std::holds_alternative<policy::hook_verdict>(allow));
    EXPECT_TRUE(std::get<policy::hook_verdict>(allow).allowed);
    auto deny =
        policy::read_hook_answer(204, R"({"decision":"deny","reason":"outside the project"})");
    ASSERT_TRUE(std::holds_alternative<policy::hook_verdict>(deny));
    EXPECT_FALSE(std::get<policy::hook_verdict>(deny).allowed);
    EXPECT_EQ(std::get<policy::hook_verdict>(deny).reason, "outside the project");
}

TEST(DecisionHook, EveryOtherAnswerIsRefusedSayingWhatWasWrong) {
    auto why = [](unsigned status, std::string_view body) {
        auto a = policy::read_hook_answer(status, body);
        return std::holds_alternative<std::string>(a) ? std::get<std::string>(a) : "(a verdict)";
    };
    EXPECT_EQ(why(500, R"({"decision":"allow"})"), "it answered HTTP 500");
    EXPECT_EQ(why(302, R"({"decision":"allow"})"), "it answered HTTP 302");
    EXPECT_EQ(why(200, "allow"), "its answer is not a JSON object");
    EXPECT_EQ(why(200, "[]"), "its answer is not a JSON object");
    EXPECT_EQ(why(200, ""), "its answer is not a JSON object");
    EXPECT_NE(why(200, "{}").find("\"decision\""), std::string::npos);
    EXPECT_NE(why(200, R"({"decision":"ALLOW"})").find("\"decision\""), std::string::npos);
    EXPECT_NE(why(200, R"({"decision":true})").find("\"decision\""), std::string::npos);
    EXPECT_NE(why(200, R"({"decision":"deny","reason":7})").find("\"reason\""), std::string::npos);
}

TEST(DecisionHook, AReasonIsCleanedOfControlCharactersAndCutOnACharacterBoundary) {
    auto a = policy::read_hook_answer(200, R"({"decision":"deny","reason":"line\nforged\u0007"})");
    EXPECT_EQ(std::get<policy::hook_verdict>(a).reason, "line?forged?");
    auto bidi = policy::read_hook_answer(
        200, R"({"decision":"deny","reason":"a\u202eb\u2066c\u0085d\u2028e\u00e9"})");
    EXPECT_EQ(std::get<policy::hook_verdict>(bidi).reason, "a?b?c?d?e\xC3\xA9");
    // 299 ASCII bytes, then a two-byte character across the 300-byte cut: it is left out whole.
    std::string long_reason(299, 'x');
    long_reason += "\xC3\xA9tail";
    auto b =
        policy::read_hook_answer(200, R"({"decision":"deny","reason":")" + long_reason + "\"}");
    EXPECT_EQ(std::get<policy::hook_verdict>(b).reason, std::string(299, 'x'));
}

TEST(DecisionHookMemory, AVerdictIsRecalledUntilItsLifetimeEnds) {
    policy::hook_memory m;
    policy::hook_memory::time_point t0{};
    EXPECT_FALSE(m.recall("q", t0));
    m.remember("q", {false, "no"}, t0, 100ms);
    auto v = m.recall("q", t0 + 99ms);
    ASSERT_TRUE(v);
    EXPECT_FALSE(v->allowed);
    EXPECT_EQ(v->reason, "no");
    EXPECT_FALSE(m.recall("q2", t0 + 1ms)) << "another description is another question";
    EXPECT_FALSE(m.recall("q", t0 + 100ms));
    EXPECT_EQ(m.size(), 0u);
}

TEST(DecisionHookMemory, NothingIsRememberedWithoutALifetimeAndTheOldestGoFirstWhenFull) {
    policy::hook_memory m(2);
    policy::hook_memory::time_point t0{};
    m.remember("a", {true, ""}, t0, 0ms);
    EXPECT_EQ(m.size(), 0u);
    m.remember("a", {true, ""}, t0, 1s);
    m.remember("b", {true, ""}, t0 + 1ms, 1s);
    m.remember("c", {true, ""}, t0 + 2ms, 1s);
    EXPECT_EQ(m.size(), 2u);
    EXPECT_FALSE(m.recall("a", t0 + 3ms));
    EXPECT_TRUE(m.recall("b", t0 + 3ms));
    EXPECT_TRUE(m.recall("c", t0 + 3ms));
    m.clear();
    EXPECT_FALSE(m.recall("c", t0 + 3ms));
}

TEST(DecisionHookMemory, AVerdictRememberedAgainLivesFromTheLaterTime) {
    policy::hook_memory m;
    policy::hook_memory::time_point t0{};
    m.remember("q", {true, ""}, t0, 100ms);
    m.remember("q", {false, "changed"}, t0 + 50ms, 100ms);
    auto v = m.recall("q", t0 + 120ms);
    ASSERT_TRUE(v) << "the first entry's expiry must not remove the later one";
    EXPECT_FALSE(v->allowed);
    EXPECT_FALSE(m.recall("q", t0 + 150ms));
}

} // namespace decision_hook_test
} // namespace gate
