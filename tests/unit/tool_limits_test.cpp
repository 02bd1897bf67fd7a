// Per-tool rate limits (upstreams[].toolLimits): the document's rules, each refused at its
// pointer; which entries a call is counted in; and the windows that count it, with time
// passed in (actors/guards/tool_limits).
#include "actors/guards/tool_limits.hpp"
#include "config/load.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace gate::tool_limits_test {
namespace {

using namespace std::chrono_literals;
const actors::sliding_window::time_point t0{std::chrono::hours(1)};

config::load_result parse_limits(std::string_view limits) {
    std::string doc = R"({"upstreams":[{"id":"alpha","url":"http://127.0.0.1:3001/mcp",)"
                      R"("toolLimits":)" +
                      std::string(limits) + "}]}";
    return config::parse(doc, config::acceptance::specification);
}

std::string error_at(const config::load_result& r, const std::string& pointer) {
    for (const auto& e : r.errors)
        if (e.pointer == pointer)
            return e.reason;
    return "(none at " + pointer + ")";
}

TEST(ToolLimitsConfig, ReadsEntries) {
    auto r = parse_limits(R"([{"names":["echo","get-*"],"requestsPerMinute":2},
                              {"names":["*"],"perPrincipalPerMinute":5}])");
    ASSERT_NE(r.doc, nullptr);
    const auto& t = r.doc->upstreams[0].tool_limits;
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].names, (std::vector<std::string>{"echo", "get-*"}));
    EXPECT_EQ(t[0].requests_per_minute, 2);
    EXPECT_FALSE(t[0].per_principal_per_minute);
    EXPECT_EQ(t[1].per_principal_per_minute, 5);
}

TEST(ToolLimitsConfig, RefusesAtPointers) {
    EXPECT_NE(error_at(parse_limits("[]"), "/upstreams/0/toolLimits").find("at least one"),
              std::string::npos);
    auto no_names = parse_limits(R"([{"requestsPerMinute":2}])");
    EXPECT_NE(error_at(no_names, "/upstreams/0/toolLimits/0/names").find("required"),
              std::string::npos);
    auto empty_names = parse_limits(R"([{"names":[],"requestsPerMinute":2}])");
    EXPECT_NE(error_at(empty_names, "/upstreams/0/toolLimits/0/names").find("at least one"),
              std::string::npos);
    auto empty_name = parse_limits(R"([{"names":[""],"requestsPerMinute":2}])");
    EXPECT_NE(error_at(empty_name, "/upstreams/0/toolLimits/0/names/0").find("empty"),
              std::string::npos);
    auto no_limit = parse_limits(R"([{"names":["a"]}])");
    EXPECT_NE(error_at(no_limit, "/upstreams/0/toolLimits/0").find("sets no limit"),
              std::string::npos);
    auto zero = parse_limits(R"([{"names":["a"],"requestsPerMinute":0}])");
    EXPECT_NE(error_at(zero, "/upstreams/0/toolLimits/0/requestsPerMinute").find("positive"),
              std::string::npos);
    auto negative = parse_limits(R"([{"names":["a"],"perPrincipalPerMinute":-1}])");
    EXPECT_NE(
        error_at(negative, "/upstreams/0/toolLimits/0/perPrincipalPerMinute").find("positive"),
        std::string::npos);
    auto stray = parse_limits(R"([{"names":["a"],"requestsPerMinute":1,"burst":3}])");
    EXPECT_NE(error_at(stray, "/upstreams/0/toolLimits/0/burst"),
              "(none at /upstreams/0/toolLimits/0/burst)");
    auto repeated = parse_limits(R"([{"names":["a"],"requestsPerMinute":1},
                                     {"names":["a"],"perPrincipalPerMinute":1}])");
    EXPECT_NE(
        error_at(repeated, "/upstreams/0/toolLimits/1/names").find("/upstreams/0/toolLimits/0"),
        std::string::npos);
    for (const auto* bad : {"[]", R"([{"requestsPerMinute":2}])", R"([{"names":["a"]}])"})
        EXPECT_EQ(parse_limits(bad).doc, nullptr) << bad;
}

config::upstream limited() {
    config::upstream u;
    u.id = "alpha";
    u.tool_limits = {
        {{"echo", "get-*"}, 2, std::nullopt}, {{"*"}, std::nullopt, 3}, {{"other"}, 9, 9}};
    return u;
}

TEST(ToolLimitsMatch, EveryMatchingEntryEveryoneThenPrincipal) {
    auto u = limited();
    auto w = actors::tool_windows_for(u, "get-sum", "iss\nalice");
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w[0].entry, 0u);
    EXPECT_FALSE(w[0].per_principal());
    EXPECT_EQ(w[0].per_minute, 2);
    EXPECT_EQ(w[1].entry, 1u);
    EXPECT_TRUE(w[1].per_principal());
    EXPECT_EQ(w[1].per_minute, 3);
    EXPECT_EQ(w[1].shared(), w[1].scope + ":iss\nalice");
    EXPECT_NE(w[0].scope, w[1].scope);
    // Whole-name matches: a pattern without a star is the name itself.
    EXPECT_EQ(actors::tool_windows_for(u, "echoes", "iss\nalice").size(), 1u);
    // Anonymous callers have no window of their own.
    EXPECT_TRUE(actors::tool_windows_for(u, "echoes", "").empty());
    EXPECT_EQ(actors::tool_windows_for(u, "echo", "").size(), 1u);
}

TEST(ToolLimitsMatch, ScopesNameTheUpstreamAndTheNamesNotThePlace) {
    auto u = limited();
    auto before = actors::tool_windows_for(u, "echo", "");
    std::swap(u.tool_limits[0], u.tool_limits[2]);
    auto after = actors::tool_windows_for(u, "echo", "");
    ASSERT_EQ(before.size(), 1u);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(before[0].scope, after[0].scope);
    EXPECT_EQ(after[0].entry, 2u);
    u.id = "beta";
    EXPECT_NE(actors::tool_windows_for(u, "echo", "")[0].scope, before[0].scope);
}

TEST(ToolWindows, EveryoneSharesOneWindowUntilTheMinutePasses) {
    actors::tool_windows w;
    EXPECT_EQ(w.take_batch("s", "", 2, t0).taken, 1);
    EXPECT_EQ(w.take_batch("s", "", 2, t0 + 1s).taken, 1);
    auto refused = w.take_batch("s", "", 2, t0 + 2s);
    EXPECT_EQ(refused.taken, 0);
    EXPECT_EQ(refused.wait, 58s);
    EXPECT_EQ(w.take_batch("other", "", 2, t0 + 2s).taken, 1); // another entry's window
    EXPECT_EQ(w.take_batch("s", "", 2, t0 + 60s).taken, 1);
}

TEST(ToolWindows, EachPrincipalHasItsOwnAllowance) {
    actors::tool_windows w;
    EXPECT_EQ(w.take_batch("s", "alice", 1, t0).taken, 1);
    EXPECT_EQ(w.take_batch("s", "alice", 1, t0 + 1s).taken, 0);
    EXPECT_EQ(w.take_batch("s", "bob", 1, t0 + 1s).taken, 1);
    // Everyone's window of the same entry is another one.
    EXPECT_EQ(w.take_batch("s", "", 1, t0 + 1s).taken, 1);
}

TEST(ToolWindows, AChangedLimitStartsAfresh) {
    actors::tool_windows w;
    EXPECT_EQ(w.take_batch("s", "", 1, t0).taken, 1);
    EXPECT_EQ(w.take_batch("s", "", 1, t0).taken, 0);
    EXPECT_EQ(w.take_batch("s", "", 2, t0).taken, 1);
    EXPECT_EQ(w.take_batch("s", "alice", 1, t0).taken, 1);
    EXPECT_EQ(w.take_batch("s", "alice", 3, t0).taken, 1);
}

} // namespace
} // namespace gate::tool_limits_test
