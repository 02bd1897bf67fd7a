// The policy engine: deny by default, subjects, grants, globs, and the rule named.
#include "policy/policy_engine.hpp"

#include <gtest/gtest.h>

using namespace gate;

namespace {

config::policy make(std::vector<config::rule> rules, std::string default_decision = "deny") {
    config::policy p;
    p.default_decision = std::move(default_decision);
    p.rules = std::move(rules);
    return p;
}

config::grant grant(std::string server, std::vector<std::string> methods = {},
                    std::vector<std::string> names = {}) {
    return {std::move(server), std::move(methods), std::move(names)};
}

gate::policy::principal alice() {
    return {"alice",
            "https://idp.example",
            {"eng", "ops"},
            boost::json::object{{"dept", "r&d"}, {"level", 3}, {"admin", false}}};
}

const std::string_view call[] = {"tools/call"};
const std::string_view reading[] = {"resources/read"};
const std::string_view subscribe[] = {"resources/subscribe", "resources/read"};

} // namespace

TEST(PolicyEngine, DeniesByDefaultAndNamesTheGrantingRule) {
    gate::policy::policy_engine none(make({}));
    auto p = alice();
    auto d = none.decide(&p, {"a", call, "echo", "a__echo"});
    EXPECT_FALSE(d.allowed);
    EXPECT_FALSE(d.rule_id);
    EXPECT_TRUE(gate::policy::policy_engine(make({}, "allow"))
                    .decide(&p, {"a", call, "echo", "a__echo"})
                    .allowed);

    gate::policy::policy_engine one(make({{"r1", std::nullopt, {grant("a")}}}));
    d = one.decide(&p, {"a", call, "echo", "a__echo"});
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.rule_id, "r1");
    EXPECT_FALSE(one.decide(&p, {"b", call, "echo", "b__echo"}).allowed);
    // A rule without subjects matches anonymous callers too.
    EXPECT_TRUE(one.decide(nullptr, {"a", call, "echo", "a__echo"}).allowed);
}

TEST(PolicyEngine, SubjectsSelectByEveryKindTheyList) {
    auto p = alice();
    auto with = [](config::subjects s) {
        return gate::policy::policy_engine(make({{"r", std::move(s), {grant("a")}}}));
    };
    auto allows = [&](const gate::policy::policy_engine& e,
                      const gate::policy::principal* who = nullptr) {
        return e.decide(who, {"a", call, "echo", "a__echo"}).allowed;
    };
    config::subjects s;
    s.subs = {"bob", "alice"};
    EXPECT_TRUE(allows(with(s), &p));
    EXPECT_FALSE(allows(with(s))); // anonymous: no principal fields
    s.issuers = {"https://other.example"};
    EXPECT_FALSE(allows(with(s), &p)); // every kind listed must match
    s.issuers = {"https://idp.example"};
    s.groups = {"ops"};
    EXPECT_TRUE(allows(with(s), &p));
    s.groups = {"sales"};
    EXPECT_FALSE(allows(with(s), &p));
    config::subjects c;
    c.claims = {{"dept", std::string("r&d")}, {"level", 3.0}, {"admin", false}};
    EXPECT_TRUE(allows(with(c), &p));
    c.claims["level"] = 4.0;
    EXPECT_FALSE(allows(with(c), &p));
    c.claims = {{"admin", std::string("false")}}; // a string is not a bool
    EXPECT_FALSE(allows(with(c), &p));
    c.claims = {{"missing", true}};
    EXPECT_FALSE(allows(with(c), &p));
}

TEST(PolicyEngine, GrantsMatchServerMethodsAndNames) {
    auto p = alice();
    gate::policy::policy_engine e(
        make({{"tools", std::nullopt, {grant("a", {"tools/call"}, {"get_*", "a__echo"})}},
              {"files", std::nullopt, {grant("f", {"resources/read"}, {"file:///pub/*"})}}}));
    EXPECT_TRUE(e.decide(&p, {"a", call, "get_weather", "a__get_weather"}).allowed);
    EXPECT_TRUE(e.decide(&p, {"a", call, "echo", "a__echo"}).allowed); // the client's spelling
    EXPECT_FALSE(e.decide(&p, {"a", call, "set_weather", "a__set_weather"}).allowed);
    EXPECT_FALSE(e.decide(&p, {"a", reading, "get_x", "get_x"}).allowed); // another method
    EXPECT_TRUE(e.decide(&p, {"f", reading, "file:///pub/a.txt", "file:///pub/a.txt"}).allowed);
    EXPECT_FALSE(e.decide(&p, {"f", reading, "file:///etc/passwd", "file:///etc/passwd"}).allowed);
    // Subscribing is covered by a grant to read.
    EXPECT_TRUE(e.decide(&p, {"f", subscribe, "file:///pub/a", "file:///pub/a"}).allowed);
}

TEST(PolicyEngine, GlobsMatchOnlyWhatTheySay) {
    EXPECT_TRUE(gate::policy::glob_match("*", ""));
    EXPECT_TRUE(gate::policy::glob_match("a*b*c", "axxbyyc"));
    EXPECT_FALSE(gate::policy::glob_match("a*b*c", "axxbyy"));
    EXPECT_TRUE(gate::policy::glob_match("*.txt", "x.txt"));
    EXPECT_FALSE(gate::policy::glob_match("*.txt", "x.txt.exe"));
    EXPECT_TRUE(gate::policy::glob_match("exact", "exact"));
    EXPECT_FALSE(gate::policy::glob_match("exact", "exactly"));
    EXPECT_FALSE(gate::policy::glob_match("", "a"));
    // No pathological backtracking on long inputs.
    std::string long_text(100000, 'a');
    EXPECT_FALSE(gate::policy::glob_match("*a*a*a*a*a*b", long_text));
}

TEST(PolicyEngine, ServerRequestsNeedTheMethodOrTheWholeServer) {
    auto p = alice();
    gate::policy::policy_engine e(
        make({{"tools-only", std::nullopt, {grant("a", {"tools/call"}, {"get_*"})}},
              {"names-only", std::nullopt, {grant("n", {}, {"get_*"})}},
              {"sampling", std::nullopt, {grant("s", {"sampling/createMessage"})}},
              {"whole", std::nullopt, {grant("w")}},
              {"bob", config::subjects{{"bob"}, {}, {}, {}}, {grant("b")}}}));
    // Granting items does not let the server ask the client anything.
    EXPECT_FALSE(e.decide_server_request(&p, "a", "sampling/createMessage").allowed);
    EXPECT_FALSE(e.decide_server_request(&p, "n", "roots/list").allowed);
    auto s = e.decide_server_request(&p, "s", "sampling/createMessage");
    EXPECT_TRUE(s.allowed);
    EXPECT_EQ(s.rule_id, "sampling");
    EXPECT_FALSE(e.decide_server_request(&p, "s", "elicitation/create").allowed);
    EXPECT_TRUE(e.decide_server_request(&p, "w", "elicitation/create").allowed);
    EXPECT_TRUE(e.decide_server_request(&p, "w", "roots/list").allowed);
    // Subjects select as for invocations: anonymous callers match no subject, and a rule
    // without subjects applies to every caller.
    EXPECT_FALSE(e.decide_server_request(&p, "b", "roots/list").allowed);
    EXPECT_FALSE(e.decide_server_request(nullptr, "b", "roots/list").allowed);
    EXPECT_TRUE(e.decide_server_request(nullptr, "s", "sampling/createMessage").allowed);
    EXPECT_TRUE(gate::policy::policy_engine(make({}, "allow"))
                    .decide_server_request(&p, "x", "roots/list")
                    .allowed);
}

TEST(PolicyEngine, TaskMethodsFollowTheCallsThatMintTasks) {
    auto p = alice();
    gate::policy::policy_engine e(make({
        {"calls", std::nullopt, {grant("a", {"tools/call"}, {"echo"})}},
        {"reads", std::nullopt, {grant("b", {"tasks/get"})}},
        {"prompts", std::nullopt, {grant("c", {"prompts/get"})}},
        {"all", std::nullopt, {grant("d")}},
    }));
    // A grant of tools/call covers every task method there, whatever names it lists.
    auto d = e.decide_task(&p, "a", "tasks/cancel");
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.rule_id, "calls");
    // A grant that lists a task method covers that one only.
    EXPECT_TRUE(e.decide_task(&p, "b", "tasks/get").allowed);
    EXPECT_FALSE(e.decide_task(&p, "b", "tasks/cancel").allowed);
    // Other methods do not, and an upstream nobody granted is denied by default.
    EXPECT_FALSE(e.decide_task(&p, "c", "tasks/list").allowed);
    EXPECT_FALSE(e.decide_task(&p, "x", "tasks/get").allowed);
    EXPECT_TRUE(e.decide_task(nullptr, "d", "tasks/result").allowed);
}
