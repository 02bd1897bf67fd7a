// The policy's deny entries, argument and annotation conditions and scopes as the document
// states them: each refused with its place and a reason, and accepted when right.
#include "config/load.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace gate::config {
namespace policy_conditions_test {

namespace json = boost::json;

std::string base_with_rules(std::string_view rules) {
    return R"({"upstreams":[{"id":"alpha","url":"http://127.0.0.1:3001/mcp","namespace":"a"}],
               "policy":{"rules":)" +
           std::string(rules) + "}}";
}

std::string dump(const std::vector<error>& errors) {
    std::string out;
    for (const auto& e : errors)
        out += "  " + e.pointer + ": " + e.reason + "\n";
    return out;
}

load_result run(std::string_view rules) {
    return parse(base_with_rules(rules), acceptance::specification);
}

void expect_error(std::string_view rules, const std::string& pointer, std::string_view needle) {
    auto r = run(rules);
    EXPECT_EQ(r.doc, nullptr);
    bool found = false;
    for (const auto& e : r.errors)
        found = found || (e.pointer == pointer && e.reason.find(needle) != std::string::npos);
    EXPECT_TRUE(found) << rules << "\nwanted " << pointer << ": ..." << needle << "...\ngot:\n"
                       << dump(r.errors);
}

TEST(ConfigPolicyConditions, EveryConditionKindIsReadIntoTheModel) {
    auto r = run(R"([{"id":"safe","subjects":{"scopes":["tools:write"]},
        "allow":[{"server":"alpha","methods":["tools/call"],"names":["write_*"],
                  "arguments":[{"pointer":"/path","prefix":"/srv/","pattern":"[a-z/]+"},
                               {"pointer":"/mode","in":["r","w",3]},
                               {"pointer":"/size","min":0,"max":1e6},
                               {"pointer":"/force","equals":false},
                               {"pointer":"/opts/0","present":true}],
                  "annotations":{"readOnlyHint":false,"destructiveHint":false}}],
        "deny":[{"server":"*","annotations":{"destructiveHint":true}}]}])");
    ASSERT_NE(r.doc, nullptr) << dump(r.errors);
    const auto& rule = r.doc->policy->rules.at(0);
    EXPECT_EQ(rule.subjects->scopes, std::vector<std::string>{"tools:write"});
    const auto& g = rule.allow.at(0);
    ASSERT_EQ(g.arguments.size(), 5u);
    EXPECT_EQ(g.arguments[0].pointer, "/path");
    EXPECT_EQ(g.arguments[0].prefix, "/srv/");
    EXPECT_EQ(g.arguments[0].pattern, "[a-z/]+");
    EXPECT_EQ(g.arguments[1].in.size(), 3u);
    EXPECT_EQ(g.arguments[2].max, 1e6);
    EXPECT_EQ(g.arguments[3].equals, claim_value(false));
    EXPECT_EQ(g.arguments[4].present, true);
    EXPECT_EQ(g.annotations.at("destructiveHint"), false);
    ASSERT_EQ(rule.deny.size(), 1u);
    EXPECT_EQ(rule.deny[0].server, "*");
    EXPECT_TRUE(rule.deny[0].annotations.at("destructiveHint"));
}

TEST(ConfigPolicyConditions, ARuleMayOnlyDeny) {
    auto r = run(R"([{"id":"no-delete","deny":[{"server":"alpha","names":["delete_*"]}]}])");
    ASSERT_NE(r.doc, nullptr) << dump(r.errors);
    EXPECT_TRUE(r.doc->policy->rules.at(0).allow.empty());
    expect_error(R"([{"id":"r"}])", "/policy/rules/0/allow", "or deny");
    expect_error(R"([{"id":"r","deny":[]}])", "/policy/rules/0/deny", "at least one entry");
    // `*` is every upstream for a deny only: a grant to every upstream is one per upstream.
    expect_error(R"([{"id":"r","allow":[{"server":"*"}]}])", "/policy/rules/0/allow/0/server",
                 "not the id");
}

TEST(ConfigPolicyConditions, ArgumentConditionsAreCheckedWhereTheyStand) {
    auto entry = [](std::string_view condition) {
        return R"([{"id":"r","allow":[{"server":"alpha","arguments":[)" + std::string(condition) +
               "]}]}]";
    };
    const std::string at = "/policy/rules/0/allow/0/arguments/0";
    expect_error(entry(R"({"equals":1})"), at + "/pointer", "required");
    expect_error(entry(R"({"pointer":"path","equals":1})"), at + "/pointer", "RFC 6901");
    expect_error(entry(R"({"pointer":"/a~2b","equals":1})"), at + "/pointer", "~0");
    expect_error(entry(R"({"pointer":"/a"})"), at, "tests nothing");
    expect_error(entry(R"({"pointer":"/a","pattern":"(unclosed"})"), at + "/pattern", "RE2");
    expect_error(entry(R"({"pointer":"/a","min":5,"max":1})"), at + "/max", "below min");
    expect_error(entry(R"({"pointer":"/a","in":[]})"), at + "/in", "at least one value");
    expect_error(entry(R"({"pointer":"/a","in":[{"x":1}]})"), at + "/in/0", "JSON scalar");
    expect_error(entry(R"({"pointer":"/a","equals":[1]})"), at + "/equals", "JSON scalar");
    expect_error(entry(R"({"pointer":"/a","prefix":"x","present":false})"), at + "/present",
                 "contradicts");
    expect_error(entry(R"({"pointer":"/a","regex":"x"})"), at + "/regex", "");
    expect_error(entry(R"({"pointer":"/a","equals":9007199254740993})"), at + "/equals", "2^53");
    expect_error(entry(R"({"pointer":"/a","in":[1,-1e300]})"), at + "/in/1", "2^53");
    expect_error(entry(R"({"pointer":"/a","max":1e20})"), at + "/max", "2^53");
    expect_error(R"([{"id":"r","allow":[{"server":"alpha","arguments":[]}]}])",
                 "/policy/rules/0/allow/0/arguments", "at least one condition");
    // Arguments are a call's: an entry for other methods cannot test them.
    expect_error(R"([{"id":"r","allow":[{"server":"alpha","methods":["resources/read"],
                     "arguments":[{"pointer":"/a","equals":1}]}]}])",
                 "/policy/rules/0/allow/0/arguments", "tools/call and prompts/get only");
}

TEST(ConfigPolicyConditions, AnnotationConditionsNameMcpHintsWithBooleans) {
    const std::string at = "/policy/rules/0/allow/0/annotations";
    expect_error(R"([{"id":"r","allow":[{"server":"alpha","annotations":{"readOnly":true}}]}])",
                 at + "/readOnly", "");
    expect_error(
        R"([{"id":"r","allow":[{"server":"alpha","annotations":{"readOnlyHint":"yes"}}]}])",
        at + "/readOnlyHint", "");
    expect_error(R"([{"id":"r","allow":[{"server":"alpha","annotations":{}}]}])", at, "is empty");
    expect_error(R"([{"id":"r","allow":[{"server":"alpha","methods":["prompts/get"],
                     "annotations":{"readOnlyHint":true}}]}])",
                 at, "tools/call only");
}

TEST(ConfigPolicyConditions, ScopesAreScopeTokensAndOnlyPolicyRulesSelectByThem) {
    expect_error(R"([{"id":"r","subjects":{"scopes":["a b"]},"allow":[{"server":"alpha"}]}])",
                 "/policy/rules/0/subjects/scopes/0", "scope token");
    // A quote would end the challenge's scope parameter early.
    expect_error(R"([{"id":"r","subjects":{"scopes":["a\"b"]},"allow":[{"server":"alpha"}]}])",
                 "/policy/rules/0/subjects/scopes/0", "scope token");
    auto tenant = parse(R"({"upstreams":[{"id":"alpha","url":"http://127.0.0.1:3001/mcp"}],
        "auth":{"mode":"required","resource":"https://gw.example/mcp",
                "issuers":[{"issuer":"https://idp.example"}]},
        "tenants":[{"id":"t","subjects":{"scopes":["x"]}}]})",
                        acceptance::specification);
    EXPECT_EQ(tenant.doc, nullptr);
    bool found = false;
    for (const auto& e : tenant.errors)
        found = found || e.pointer == "/tenants/0/subjects/scopes";
    EXPECT_TRUE(found) << dump(tenant.errors);
}

} // namespace policy_conditions_test
} // namespace gate::config
