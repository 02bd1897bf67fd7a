// The policy memo: the engine's decisions, remembered per invocation and keyed by exactly
// what the decision reads.
#include "policy/policy_memo.hpp"

#include <gtest/gtest.h>

using namespace gate;

namespace {

std::shared_ptr<const gate::policy::policy_engine> engine_of(std::vector<config::rule> rules) {
    config::policy p;
    p.rules = std::move(rules);
    return std::make_shared<const gate::policy::policy_engine>(p);
}

config::subjects in_group(std::string g) {
    config::subjects s;
    s.groups = {std::move(g)};
    return s;
}

gate::policy::principal member(std::string sub, std::vector<std::string> groups,
                               boost::json::object claims = {}) {
    return {std::move(sub), "https://idp.example", std::move(groups), std::move(claims)};
}

const std::string_view call[] = {"tools/call"};

// A hundred rules, the last granting group `bench` the tools whose names start with `ec`.
std::shared_ptr<const gate::policy::policy_engine> hundred_rules() {
    std::vector<config::rule> rules;
    for (int i = 0; i < 99; ++i)
        rules.push_back({"team-" + std::to_string(i),
                         in_group("team-" + std::to_string(i)),
                         {{"bench", {"tools/call"}, {"tool-" + std::to_string(i) + "-*"}}}});
    rules.push_back({"bench", in_group("bench"), {{"bench", {"tools/call"}, {"ec*"}}}});
    return engine_of(std::move(rules));
}

} // namespace

TEST(PolicyMemo, AnswersWhatTheEngineDecidesAndRemembersIt) {
    auto engine = hundred_rules();
    gate::policy::policy_memo memo;
    auto alice = member("alice", {"bench"});
    for (int i = 0; i < 3; ++i) {
        auto d = memo.decide(engine, &alice, {"bench", call, "echo", "echo"});
        EXPECT_TRUE(d.allowed);
        EXPECT_EQ(d.rule_id, "bench");
    }
    EXPECT_EQ(memo.size(), 1u); // decided once
    auto denied = memo.decide(engine, &alice, {"bench", call, "add", "add"});
    EXPECT_FALSE(denied.allowed);
    EXPECT_FALSE(denied.rule_id);
    EXPECT_FALSE(memo.decide(engine, &alice, {"other", call, "echo", "echo"}).allowed);
    EXPECT_FALSE(memo.decide(engine, nullptr, {"bench", call, "echo", "echo"}).allowed);
    EXPECT_EQ(memo.size(), 4u);
}

TEST(PolicyMemo, CallersAreTheSameOnlyInWhatTheRulesRead) {
    auto engine = hundred_rules(); // reads groups only
    gate::policy::policy_memo memo;
    auto alice = member("alice", {"bench"});
    auto bob = member("bob", {"bench"}); // another subject, the same groups
    auto carol = member("carol", {"team-3"});
    EXPECT_TRUE(memo.decide(engine, &alice, {"bench", call, "echo", "echo"}).allowed);
    EXPECT_TRUE(memo.decide(engine, &bob, {"bench", call, "echo", "echo"}).allowed);
    EXPECT_EQ(memo.size(), 1u);
    EXPECT_FALSE(memo.decide(engine, &carol, {"bench", call, "echo", "echo"}).allowed);
    auto d = memo.decide(engine, &carol, {"bench", call, "tool-3-x", "tool-3-x"}).rule_id;
    EXPECT_EQ(d, "team-3");
    // The same subject after its groups changed (a new token) is decided afresh.
    auto alice_moved = member("alice", {"team-3"});
    EXPECT_FALSE(memo.decide(engine, &alice_moved, {"bench", call, "echo", "echo"}).allowed);
}

TEST(PolicyMemo, SubjectsIssuersAndClaimsReadByARuleTellCallersApart) {
    config::subjects by_sub, by_claim;
    by_sub.subs = {"alice"};
    by_claim.claims = {{"dept", std::string("r&d")}};
    auto engine =
        engine_of({{"alice", by_sub, {{"a", {}, {}}}}, {"rd", by_claim, {{"b", {}, {}}}}});
    gate::policy::policy_memo memo;
    auto alice = member("alice", {});
    auto bob = member("bob", {});
    EXPECT_TRUE(memo.decide(engine, &alice, {"a", call, "x", "x"}).allowed);
    EXPECT_FALSE(memo.decide(engine, &bob, {"a", call, "x", "x"}).allowed);
    auto rd = member("bob", {}, {{"dept", "r&d"}});
    auto sales = member("bob", {}, {{"dept", "sales"}});
    auto numeric = member("bob", {}, {{"dept", 3}});
    EXPECT_TRUE(memo.decide(engine, &rd, {"b", call, "x", "x"}).allowed);
    EXPECT_FALSE(memo.decide(engine, &sales, {"b", call, "x", "x"}).allowed);
    EXPECT_FALSE(memo.decide(engine, &numeric, {"b", call, "x", "x"}).allowed);
    EXPECT_FALSE(memo.decide(engine, &bob, {"b", call, "x", "x"}).allowed); // no such claim
}

TEST(PolicyMemo, KeyPartsNeverRunTogether) {
    // "ab" + "c" and "a" + "bc" are different invocations.
    auto engine = engine_of({{"r", std::nullopt, {{"s", {}, {"ab"}}}}});
    gate::policy::policy_memo memo;
    EXPECT_TRUE(memo.decide(engine, nullptr, {"s", call, "ab", "c"}).allowed);
    EXPECT_FALSE(memo.decide(engine, nullptr, {"s", call, "a", "bc"}).allowed);
}

TEST(PolicyMemo, GroupListsNeverRunTogether) {
    // One group of 122 characters and eleven groups that spell the same characters: their
    // count is a part of its own, so neither is taken for the other.
    std::string tail;
    for (int i = 0; i < 10; ++i)
        tail += "8:yyyyyyyy";
    std::vector<std::string> eleven{std::string(22, 'x')};
    for (int i = 0; i < 10; ++i)
        eleven.push_back("yyyyyyyy");
    auto engine = engine_of({{"xs", in_group(std::string(22, 'x')), {{"s", {}, {}}}}});
    gate::policy::policy_memo memo;
    auto many = member("bob", eleven);
    auto one = member("bob", {std::string(22, 'x') + tail});
    EXPECT_TRUE(memo.decide(engine, &many, {"s", call, "x", "x"}).allowed);
    EXPECT_FALSE(memo.decide(engine, &one, {"s", call, "x", "x"}).allowed);
}

TEST(PolicyMemo, ANewEngineForgetsTheOldDecisions) {
    auto before = engine_of({{"all", std::nullopt, {{"s", {}, {}}}}});
    auto after = engine_of({});
    gate::policy::policy_memo memo;
    EXPECT_TRUE(memo.decide(before, nullptr, {"s", call, "x", "x"}).allowed);
    EXPECT_FALSE(memo.decide(after, nullptr, {"s", call, "x", "x"}).allowed); // a reload
    EXPECT_EQ(memo.size(), 1u);
}

TEST(PolicyMemo, IsBounded) {
    auto engine = hundred_rules();
    gate::policy::policy_memo memo(4);
    auto alice = member("alice", {"bench"});
    for (int i = 0; i < 10; ++i) {
        auto name = "tool-" + std::to_string(i);
        EXPECT_FALSE(memo.decide(engine, &alice, {"bench", call, name, name}).allowed);
        EXPECT_LE(memo.size(), 4u);
    }
    EXPECT_TRUE(memo.decide(engine, &alice, {"bench", call, "echo", "echo"}).allowed);
}
