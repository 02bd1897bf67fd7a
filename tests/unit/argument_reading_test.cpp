// How an argument condition reads a string before testing it (docs/configuration.md, Policy):
// "normalize": "path" judges the path a value names, lexically, and never grants one that
// climbs above its start; "ignoreCase" compares ASCII letters of either case alike. Both are
// refused where no test reads a string.
#include "config/load.hpp"
#include "policy/argument_match.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate;

namespace argument_reading_test {

namespace json = boost::json;

config::argument_condition on_path(std::string prefix) {
    config::argument_condition c;
    c.pointer = "/path";
    c.prefix = std::move(prefix);
    c.normalize_path = true;
    return c;
}

bool holds(const config::argument_condition& c, std::string_view arguments, bool refusing) {
    auto args = json::parse(arguments).as_object();
    return gate::policy::argument_match(c).holds(&args, refusing);
}

TEST(ArgumentReading, LexicalPathDropsDotsAndRefusesEveryStepUp) {
    EXPECT_EQ(gate::policy::lexical_path("/srv/../etc/passwd"), std::nullopt);
    EXPECT_EQ(gate::policy::lexical_path("/srv//a/./b/"), "/srv/a/b");
    EXPECT_EQ(gate::policy::lexical_path("/srv/a/../b"),
              std::nullopt); // /srv/a may be a link out of /srv
    EXPECT_EQ(gate::policy::lexical_path("a/b/.."), std::nullopt);
    EXPECT_EQ(gate::policy::lexical_path("./a/."), "a");
    EXPECT_EQ(gate::policy::lexical_path("/"), "/");
    EXPECT_EQ(gate::policy::lexical_path(""), ".");
    EXPECT_EQ(gate::policy::lexical_path("/srv/..."), "/srv/..."); // a name, not a step up
    EXPECT_EQ(gate::policy::lexical_path("/../etc"), std::nullopt);
    EXPECT_EQ(gate::policy::lexical_path("/srv/../../etc"), std::nullopt);
    EXPECT_EQ(gate::policy::lexical_path("../x"), std::nullopt);
    EXPECT_EQ(gate::policy::lexical_path(std::string_view("/srv/a\0/../../etc", 17)), std::nullopt);
}

TEST(ArgumentReading, APathConditionJudgesWhereTheValueLeads) {
    auto c = on_path("/srv/");
    EXPECT_TRUE(holds(c, R"({"path":"/srv/notes"})", false));
    EXPECT_TRUE(holds(c, R"({"path":"/srv//a/./notes"})", false));
    // A step up cannot be judged: a grant's condition fails, a deny's holds (fails closed).
    EXPECT_FALSE(holds(c, R"({"path":"/srv/a/../notes"})", false));
    EXPECT_FALSE(holds(c, R"({"path":"/srv/../etc/passwd"})", false));
    EXPECT_TRUE(holds(c, R"({"path":"/srv/../etc/passwd"})", true));
    EXPECT_FALSE(holds(c, R"({"path":"/../srv/x"})", false));
    EXPECT_TRUE(holds(c, R"({"path":"/../srv/x"})", true));
    auto deny_etc = on_path("/etc/");
    EXPECT_TRUE(holds(deny_etc, R"({"path":"/srv/../etc/shadow"})", true));
    auto plain = c;
    plain.normalize_path = false;
    EXPECT_TRUE(holds(plain, R"({"path":"/srv/../etc/passwd"})", false)); // what it guards against
}

TEST(ArgumentReading, IgnoreCaseFoldsTheValueAndEveryStringTest) {
    config::argument_condition c;
    c.pointer = "/repo";
    c.prefix = "Secret-";
    c.ignore_case = true;
    for (auto repo : {"secret-x", "SECRET-x", "sEcReT-"})
        EXPECT_TRUE(holds(c, std::string(R"({"repo":")") + repo + "\"}", true)) << repo;
    EXPECT_FALSE(holds(c, R"({"repo":"public"})", true));
    config::argument_condition in;
    in.pointer = "/mode";
    in.in = {std::string("Create"), std::string("append")};
    in.ignore_case = true;
    EXPECT_TRUE(holds(in, R"({"mode":"CREATE"})", false));
    EXPECT_TRUE(holds(in, R"({"mode":"Append"})", false));
    EXPECT_FALSE(holds(in, R"({"mode":"delete"})", false));
    config::argument_condition pattern;
    pattern.pointer = "/name";
    pattern.pattern = "[a-z]+";
    pattern.ignore_case = true;
    EXPECT_TRUE(holds(pattern, R"({"name":"ABC"})", false));
    pattern.ignore_case = false;
    EXPECT_FALSE(holds(pattern, R"({"name":"ABC"})", false));
}

std::vector<config::error> load_errors(std::string_view condition) {
    auto text = R"({"upstreams":[{"id":"alpha","url":"http://127.0.0.1:3001/mcp","namespace":"a"}],
        "policy":{"rules":[{"id":"r","allow":[{"server":"alpha","methods":["tools/call"],
        "arguments":[)" +
                std::string(condition) + "]}]}]}}";
    return config::parse(text, config::acceptance::specification).errors;
}

TEST(ArgumentReading, TheReadingsAreReadAndRefusedWhereTheyWouldChangeNothing) {
    EXPECT_TRUE(load_errors(R"({"pointer":"/p","prefix":"/srv/","normalize":"path"})").empty());
    EXPECT_TRUE(load_errors(R"({"pointer":"/p","in":["a",1],"ignoreCase":true})").empty());
    const std::string at = "/policy/rules/0/allow/0/arguments/0/";
    auto said = [&](std::string_view condition, const std::string& pointer, std::string_view what) {
        auto errors = load_errors(condition);
        for (const auto& e : errors)
            if (e.pointer == at + pointer && e.reason.find(what) != std::string::npos)
                return true;
        return false;
    };
    EXPECT_TRUE(said(R"({"pointer":"/p","min":1,"normalize":"path"})", "normalize", "no test"));
    EXPECT_TRUE(said(R"({"pointer":"/p","equals":3,"ignoreCase":true})", "ignoreCase", "no test"));
    EXPECT_TRUE(said(R"({"pointer":"/p","prefix":"/","normalize":"url"})", "normalize", "path"));
    EXPECT_TRUE(said(R"({"pointer":"/p","prefix":"/","ignoreCase":"yes"})", "ignoreCase", ""));
}

} // namespace argument_reading_test
