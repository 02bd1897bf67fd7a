// The policy beyond grants: deny entries that win, conditions on a call's arguments and on a
// tool's annotations, scopes as subjects with the step-up they call for, and lists that show
// what some call may be allowed.
#include "policy/policy_engine.hpp"
#include "policy/policy_memo.hpp"
#include "policy/subjects_select.hpp"
#include "protocol/oauth_scope.hpp"

#include <boost/json/parse.hpp>
#include <cmath>
#include <gtest/gtest.h>

using namespace gate;

namespace policy_depth_test {

namespace json = boost::json;

const std::string_view call[] = {"tools/call"};
const std::string_view get[] = {"prompts/get"};

config::argument_condition at(std::string pointer) {
    config::argument_condition c;
    c.pointer = std::move(pointer);
    return c;
}

config::grant on(std::string server, std::vector<std::string> methods = {},
                 std::vector<std::string> names = {}) {
    config::grant g;
    g.server = std::move(server);
    g.methods = std::move(methods);
    g.names = std::move(names);
    return g;
}

config::rule rule(std::string id, std::vector<config::grant> allow,
                  std::vector<config::grant> deny = {},
                  std::optional<config::subjects> subjects = std::nullopt) {
    config::rule r;
    r.id = std::move(id);
    r.subjects = std::move(subjects);
    r.allow = std::move(allow);
    r.deny = std::move(deny);
    return r;
}

gate::policy::policy_engine engine(std::vector<config::rule> rules, std::string fallback = "deny") {
    config::policy p;
    p.default_decision = std::move(fallback);
    p.rules = std::move(rules);
    return gate::policy::policy_engine(p);
}

gate::policy::principal with_scope(std::string scope) {
    return {"alice", "https://idp", {}, json::object{{"scope", std::move(scope)}}};
}

gate::policy::invocation tool(std::string_view name, const json::object* args = nullptr) {
    gate::policy::invocation what{"a", call, name, name};
    what.arguments = args;
    what.hints = protocol::tool_hints{};
    return what;
}

TEST(PolicyDepth, ADenyEntryWinsOverEveryAllowWhateverTheOrder) {
    auto e = engine({rule("everything", {on("a")}),
                     rule("no-delete", {}, {on("a", {"tools/call"}, {"delete_*"})})});
    EXPECT_TRUE(e.decide(nullptr, tool("read")).allowed);
    auto d = e.decide(nullptr, tool("delete_all"));
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.rule_id, "no-delete");
    EXPECT_EQ(d.by, gate::policy::decided_by::deny_entry);
    // A denylist: allow by default, refuse what a rule names; `*` is every upstream.
    auto list = engine({rule("nowhere", {}, {on("*", {}, {"rm"})})}, "allow");
    EXPECT_FALSE(list.decide(nullptr, tool("rm")).allowed);
    gate::policy::invocation elsewhere{"b", call, "rm", "b__rm"};
    EXPECT_FALSE(list.decide(nullptr, elsewhere).allowed);
    EXPECT_TRUE(list.decide(nullptr, tool("ls")).allowed);
    // A deny applies to the principals its rule selects only.
    config::subjects bob;
    bob.subs = {"bob"};
    auto only_bob = engine({rule("all", {on("a")}), rule("bob-no", {}, {on("a")}, bob)});
    auto alice = with_scope("");
    EXPECT_TRUE(only_bob.decide(&alice, tool("x")).allowed);
}

TEST(PolicyDepth, ArgumentConditionsTestTheValueAtTheirPointer) {
    auto path = at("/path");
    path.prefix = "/srv/";
    auto size = at("/opts/1");
    size.min = 1;
    size.max = 10;
    auto mode = at("/mode");
    mode.in = {std::string("r"), 3.0};
    auto name = at("/name");
    name.pattern = "[a-z]+";
    auto g = on("a", {"tools/call"});
    g.arguments = {path, size, mode, name};
    auto e = engine({rule("files", {g})});
    auto decide = [&](std::string_view text) {
        auto args = json::parse(text).as_object();
        return e.decide(nullptr, tool("write", &args)).allowed;
    };
    EXPECT_TRUE(decide(R"({"path":"/srv/x","opts":[0,5],"mode":"r","name":"abc"})"));
    EXPECT_TRUE(decide(R"({"path":"/srv/x","opts":[0,10],"mode":3,"name":"abc"})"));
    EXPECT_FALSE(decide(R"({"path":"/etc/x","opts":[0,5],"mode":"r","name":"abc"})"));
    EXPECT_FALSE(decide(R"({"path":"/srv/x","opts":[0,11],"mode":"r","name":"abc"})"));
    EXPECT_FALSE(decide(R"({"path":"/srv/x","opts":[0,"5"],"mode":"r","name":"abc"})"));
    EXPECT_FALSE(decide(R"({"path":"/srv/x","opts":[0],"mode":"r","name":"abc"})"));
    EXPECT_FALSE(decide(R"({"path":"/srv/x","opts":[0,5],"mode":"3","name":"abc"})"));
    // The pattern matches the whole value, not a part of it.
    EXPECT_FALSE(decide(R"({"path":"/srv/x","opts":[0,5],"mode":"r","name":"abc1"})"));
    EXPECT_FALSE(decide(R"({"path":["/srv/x"],"opts":[0,5],"mode":"r","name":"abc"})"));
    EXPECT_FALSE(e.decide(nullptr, tool("write")).allowed); // no arguments at all
}

TEST(PolicyDepth, PointersFollowRfc6901) {
    auto args = json::parse(R"({"a/b":{"m~n":[1,{"x":true}]},"":7,"list":[0,1]})").as_object();
    auto value = [&](std::vector<std::string> tokens) {
        return gate::policy::value_at(args, tokens);
    };
    ASSERT_NE(value({"a/b", "m~n", "1", "x"}), nullptr);
    EXPECT_TRUE(value({"a/b", "m~n", "1", "x"})->as_bool());
    EXPECT_EQ(value({""})->as_int64(), 7);
    EXPECT_EQ(value({"list", "01"}), nullptr); // no leading zeros
    EXPECT_EQ(value({"list", "-"}), nullptr);  // past the end names nothing
    EXPECT_EQ(value({"list", "2"}), nullptr);
    EXPECT_EQ(value({"list", "1", "x"}), nullptr);
    // Escapes in the configured pointer: ~1 is '/', ~0 is '~'.
    auto c = at("/a~1b/m~0n/1/x");
    c.equals = true;
    EXPECT_TRUE(gate::policy::argument_match(c).holds(&args));
    auto absent = at("/nothing");
    absent.present = false;
    EXPECT_TRUE(gate::policy::argument_match(absent).holds(&args));
    EXPECT_TRUE(gate::policy::argument_match(absent).holds(nullptr));
}

TEST(PolicyDepth, APatternCostsLinearTimeOnHostileInput) {
    auto c = at("/q");
    c.pattern = "(a+)+$"; // catastrophic for a backtracking matcher
    gate::policy::argument_match m(c);
    json::object args{{"q", std::string(100000, 'a') + "!"}};
    EXPECT_FALSE(m.holds(&args));
}

TEST(PolicyDepth, AnnotationConditionsReadTheToolsHintsWithMcpDefaults) {
    auto read_only = on("a");
    read_only.annotations = {{"readOnlyHint", true}};
    auto e =
        engine({rule("reads", {read_only}), rule("no-destroy", {}, {[] {
                                                     auto g = on("*");
                                                     g.annotations = {{"destructiveHint", true}};
                                                     return g;
                                                 }()})},
               "deny");
    auto reader = tool("get");
    reader.hints = protocol::tool_hints::of(
        json::parse(R"({"annotations":{"readOnlyHint":true,"destructiveHint":false}})")
            .as_object());
    EXPECT_TRUE(e.decide(nullptr, reader).allowed);
    // Nothing declared: destructive by MCP's default, so the deny applies.
    auto plain = tool("set");
    auto d = e.decide(nullptr, plain);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.rule_id, "no-destroy");
    // What is no tool has no annotations: an annotation entry does not cover it.
    gate::policy::invocation prompt{"a", get, "p", "a__p"};
    EXPECT_FALSE(e.decide(nullptr, prompt).allowed);
    EXPECT_EQ(e.decide(nullptr, prompt).by, gate::policy::decided_by::default_decision);
    EXPECT_TRUE(e.reads_annotations_of("a"));
    EXPECT_TRUE(e.reads_annotations_of("zzz")); // the deny's `*`
}

TEST(PolicyDepth, ListsShowWhatSomeCallMayBeAllowed) {
    auto limited = on("a", {"tools/call"}, {"write"});
    auto c = at("/path");
    c.prefix = "/tmp/";
    limited.arguments = {c};
    auto guarded = on("a", {"tools/call"}, {"exec"});
    auto no_root = at("/user");
    no_root.equals = std::string("root");
    guarded.arguments = {no_root};
    auto e =
        engine({rule("w", {limited, on("a", {"tools/call"}, {"exec"})}), rule("x", {}, {guarded})});
    gate::policy::invocation listing = tool("write");
    listing.listing = true;
    EXPECT_TRUE(e.decide(nullptr, listing).allowed); // some paths may be written
    listing = tool("exec");
    listing.listing = true;
    EXPECT_TRUE(e.decide(nullptr, listing).allowed); // only root is refused
    json::object as_root{{"user", "root"}};
    EXPECT_FALSE(e.decide(nullptr, tool("exec", &as_root)).allowed);
    json::object as_bob{{"user", "bob"}};
    EXPECT_TRUE(e.decide(nullptr, tool("exec", &as_bob)).allowed);
}

TEST(PolicyDepth, AMissingScopeIsAStepUpNamingTheRulesScopes) {
    config::subjects writers;
    writers.scopes = {"files:write", "files:read"};
    auto e = engine({rule("write", {on("a", {"tools/call"}, {"write"})}, {}, writers),
                     rule("read", {on("a", {"tools/call"}, {"read"})})});
    auto reader = with_scope("files:read openid");
    auto d = e.decide(&reader, tool("write"));
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.needed_scopes, (std::vector<std::string>{"files:write", "files:read"}));
    EXPECT_EQ(d.step_up_rule, "write");
    auto writer = with_scope("files:read files:write");
    EXPECT_TRUE(e.decide(&writer, tool("write")).allowed);
    // `scp` as a list counts too.
    gate::policy::principal listed{
        "bob", "i", {}, json::object{{"scp", json::array{"files:write", "files:read"}}}};
    EXPECT_TRUE(e.decide(&listed, tool("write")).allowed);
    // Nothing more scopes would grant: a plain denial. An anonymous caller has no token.
    EXPECT_TRUE(e.decide(&reader, tool("delete")).needed_scopes.empty());
    EXPECT_TRUE(e.decide(nullptr, tool("write")).needed_scopes.empty());
    // A deny is no step-up: more scopes would not help.
    auto denied = engine(
        {rule("write", {on("a")}, {}, writers), rule("never", {}, {on("a", {}, {"write"})})});
    EXPECT_TRUE(denied.decide(&reader, tool("write")).needed_scopes.empty());
}

TEST(PolicyDepth, TasksAndServerRequestsIgnoreConditionalEntries) {
    auto c = at("/x");
    c.equals = 1.0;
    auto conditional = on("a", {"tools/call"});
    conditional.arguments = {c};
    auto e = engine({rule("calls", {conditional}), rule("no", {}, {conditional})});
    // The task a call became met the conditions when it was made.
    EXPECT_TRUE(e.decide_task(nullptr, "a", "tasks/get").allowed);
    EXPECT_FALSE(e.decide_server_request(nullptr, "a", "sampling/createMessage").allowed);
    auto whole = engine({rule("all", {on("a")}), rule("no-tasks", {}, {on("a", {"tasks/get"})})});
    EXPECT_FALSE(whole.decide_task(nullptr, "a", "tasks/get").allowed);
    EXPECT_TRUE(whole.decide_task(nullptr, "a", "tasks/result").allowed);
}

TEST(PolicyDepth, TheMemoNeverRemembersADecisionOnArguments) {
    auto c = at("/n");
    c.max = 5;
    auto g = on("a", {"tools/call"});
    g.arguments = {c};
    auto shared = std::make_shared<const gate::policy::policy_engine>(engine({rule("small", {g})}));
    gate::policy::policy_memo memo;
    json::object small{{"n", 3}}, big{{"n", 9}};
    EXPECT_TRUE(memo.decide(shared, nullptr, tool("t", &small)).allowed);
    EXPECT_FALSE(memo.decide(shared, nullptr, tool("t", &big)).allowed);
    EXPECT_EQ(memo.size(), 0u);
    // Annotations are in the key: another tool state is decided afresh.
    auto ro = on("a");
    ro.annotations = {{"readOnlyHint", true}};
    auto by_hint = std::make_shared<const gate::policy::policy_engine>(engine({rule("ro", {ro})}));
    auto yes = tool("t");
    yes.hints->set |= protocol::tool_hints::read_only;
    EXPECT_TRUE(memo.decide(by_hint, nullptr, yes).allowed);
    EXPECT_FALSE(memo.decide(by_hint, nullptr, tool("t")).allowed);
}

TEST(PolicyDepth, ToolHintsReadOnlyBooleans) {
    auto h = protocol::tool_hints::of(
        json::parse(R"({"annotations":{"readOnlyHint":1,"openWorldHint":false}})").as_object());
    EXPECT_FALSE(h.has(protocol::tool_hints::read_only)); // 1 is not true
    EXPECT_FALSE(h.has(protocol::tool_hints::open_world));
    EXPECT_TRUE(h.has(protocol::tool_hints::destructive));
    EXPECT_EQ(protocol::tool_hints::named("idempotentHint"), protocol::tool_hints::idempotent);
    EXPECT_FALSE(protocol::tool_hints::named("readOnly"));
}

TEST(PolicyDepth, ADenyFailsClosedOnAValueOfAnotherKindAGrantDoesNot) {
    auto big = at("/amount");
    big.min = 1000;
    auto root = at("/user");
    root.equals = std::string("root");
    auto denies = on("a", {"tools/call"});
    denies.arguments = {big};
    auto denies_root = on("a", {"tools/call"});
    denies_root.arguments = {root};
    auto e = engine(
        {rule("all", {on("a")}), rule("no-big", {}, {denies}), rule("no-root", {}, {denies_root})});
    auto decide = [&](std::string_view text) {
        auto args = json::parse(text).as_object();
        return e.decide(nullptr, tool("pay", &args));
    };
    EXPECT_FALSE(decide(R"({"amount":5000})").allowed);
    EXPECT_FALSE(decide(R"({"amount":"5000"})").allowed); // text an upstream may read as 5000
    EXPECT_EQ(decide(R"({"amount":"5000"})").rule_id, "no-big");
    EXPECT_FALSE(decide(R"({"user":["root"]})").allowed);
    EXPECT_TRUE(decide(R"({"amount":5,"user":"bob"})").allowed);
    // A grant's condition on a value of another kind does not hold.
    auto small = at("/amount");
    small.max = 10;
    auto grants = on("a", {"tools/call"});
    grants.arguments = {small};
    auto g = engine({rule("small", {grants})});
    json::object text{{"amount", "5"}}, nan{{"amount", std::nan("")}};
    EXPECT_FALSE(g.decide(nullptr, tool("pay", &text)).allowed);
    EXPECT_FALSE(g.decide(nullptr, tool("pay", &nan)).allowed); // not a finite number
}

TEST(PolicyDepth, IntegersCompareExactly) {
    auto id = at("/id");
    id.equals = 9007199254740992.0; // 2^53
    gate::policy::argument_match m(id);
    json::object same{{"id", std::int64_t{9007199254740992}}};
    json::object next{{"id", std::int64_t{9007199254740993}}};
    EXPECT_TRUE(m.holds(&same));
    EXPECT_FALSE(m.holds(&next)); // a double would have taken it for 2^53
    auto bound = at("/n");
    bound.max = 9007199254740992.0;
    json::object over{{"n", std::uint64_t{9007199254740993ull}}};
    EXPECT_FALSE(gate::policy::argument_match(bound).holds(&over));
}

TEST(PolicyDepth, RulesSeeBothSpellingsOfAShortenedName) {
    auto e = engine({rule("all", {on("a")}),
                     rule("no-long", {}, {on("a", {"tools/call"}, {"a__very_long_*"})})});
    gate::policy::invocation by_alias{"a", call, "very_long_tool_name", "a__very_l-0123abcd"};
    EXPECT_TRUE(e.decide(nullptr, by_alias).allowed); // the rule names the full spelling
    by_alias.other_name = "a__very_long_tool_name";
    EXPECT_FALSE(e.decide(nullptr, by_alias).allowed);
}

TEST(PolicyDepth, TheMemoDoesNotKeepLongNames) {
    auto shared =
        std::make_shared<const gate::policy::policy_engine>(engine({rule("all", {on("a")})}));
    gate::policy::policy_memo memo;
    std::string long_name(600, 'x');
    EXPECT_TRUE(memo.decide(shared, nullptr, tool(long_name)).allowed);
    EXPECT_EQ(memo.size(), 0u);
    EXPECT_TRUE(memo.decide(shared, nullptr, tool("short")).allowed);
    EXPECT_EQ(memo.size(), 1u);
}

TEST(PolicyDepth, HeldScopesAreTheTokensInOrderOnce) {
    gate::policy::principal p{
        "a", "i", {}, json::object{{"scope", "b a b"}, {"scp", json::array{"c", "a"}}}};
    EXPECT_EQ(held_scopes(p), (std::vector<std::string>{"b", "a", "c"}));
    EXPECT_TRUE(protocol::is_scope_token("files:write"));
    EXPECT_FALSE(protocol::is_scope_token("a\"b"));
    EXPECT_FALSE(protocol::is_scope_token(""));
}

} // namespace policy_depth_test
