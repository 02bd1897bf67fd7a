// Tool search over a federation (actors/federation/tool_search.cpp) and the reading of gate's
// own tools' arguments (protocol/gate_tools): the policy and the tenant filter the candidates
// before the cut, a selection lists only tools the caller may call, and bad arguments say what
// was wrong.
#include "actors/federation/federation.hpp"
#include "protocol/gate_tools.hpp"
#include "test_config.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate;
using protocol::list_kind;
namespace json = boost::json;

namespace {

constexpr auto everything = protocol::full_profile;
const actors::time_point start{};

json::object tool_named(std::string name, std::string description) {
    return {{"name", std::move(name)},
            {"description", std::move(description)},
            {"inputSchema", {{"type", "object"}}}};
}

// up-a: files; up-b: calendar and mail. Alice may call only up-a's read_file; nobody is
// granted anything else.
std::shared_ptr<config::document> searched_doc(bool with_policy) {
    auto doc = std::make_shared<config::document>(*test::two_upstreams()->doc);
    if (with_policy) {
        config::policy p;
        config::subjects alice;
        alice.subs = {"alice"};
        p.rules.push_back({"files", alice, {{"up-a", {"tools/call"}, {"read_file"}}}});
        doc->policy = p;
    }
    return doc;
}

actors::federation stocked(std::shared_ptr<config::document> doc) {
    actors::federation f(actors::make_snapshot(std::move(doc), 1),
                         protocol::cursor_codec::with_random_key());
    f.store(0, list_kind::tools, everything,
            json::array{tool_named("read_file", "Reads a file from the disk"),
                        tool_named("write_file", "Writes a file to the disk")},
            start);
    f.store(1, list_kind::tools, everything,
            json::array{tool_named("create_event", "Creates a calendar event"),
                        tool_named("send_mail", "Sends an e-mail message"),
                        tool_named("read_mail", "Reads the newest e-mail messages")},
            start);
    return f;
}

std::vector<std::string> names_of(const json::array& tools) {
    std::vector<std::string> out;
    for (const auto& t : tools)
        out.emplace_back(t.at("name").as_string());
    return out;
}

const policy::principal alice{"alice", "https://idp", {}, {}};
const policy::principal bob{"bob", "https://idp", {}, {}};

} // namespace

TEST(tool_search, finds_tools_by_what_they_do_best_first_as_they_are_listed) {
    auto f = stocked(searched_doc(false));
    auto found = f.search_tools(everything, "read a file", 10, nullptr, std::nullopt);
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(names_of(found).front(), "a__read_file");
    // The definition is the one listed: namespaced, its schema carried.
    EXPECT_TRUE(found.front().as_object().contains("inputSchema"));
    EXPECT_EQ(names_of(f.search_tools(everything, "calendar", 10, nullptr, std::nullopt)),
              std::vector<std::string>{"b__create_event"});
    EXPECT_EQ(f.search_tools(everything, "read", 1, nullptr, std::nullopt).size(), 1u);
    EXPECT_TRUE(f.search_tools(everything, "weather", 10, nullptr, std::nullopt).empty());
}

TEST(tool_search, the_policy_filters_before_the_cut_so_a_refused_tool_never_takes_a_place) {
    auto f = stocked(searched_doc(true));
    // read_mail matches "read" as well as read_file; bob may call neither, alice only read_file.
    EXPECT_EQ(names_of(f.search_tools(everything, "read", 1, &alice, std::nullopt)),
              std::vector<std::string>{"a__read_file"});
    EXPECT_TRUE(f.search_tools(everything, "read", 10, &bob, std::nullopt).empty());
    EXPECT_TRUE(f.search_tools(everything, "read", 10, nullptr, std::nullopt).empty());
    // Each caller's verdicts are its own, remembered: asked again, the same answers.
    EXPECT_EQ(names_of(f.search_tools(everything, "read", 10, &alice, std::nullopt)),
              std::vector<std::string>{"a__read_file"});
    EXPECT_TRUE(f.search_tools(everything, "read", 10, &bob, std::nullopt).empty());
    // A new list is judged anew: granted nothing on up-b, alice still finds none of its tools.
    f.store(1, list_kind::tools, everything,
            json::array{tool_named("read_calendar", "Reads a calendar")}, start);
    EXPECT_EQ(names_of(f.search_tools(everything, "read", 10, &alice, std::nullopt)),
              std::vector<std::string>{"a__read_file"});
    // The same caller's list agrees with its search.
    auto page = std::get<actors::list_answer>(
        f.page(list_kind::tools, everything, std::nullopt, 7, &alice));
    EXPECT_EQ(names_of(page.result().at("tools").as_array()),
              std::vector<std::string>{"a__read_file"});
}

TEST(tool_search, a_tenant_finds_only_the_upstreams_it_sees) {
    auto doc = searched_doc(false);
    config::tenant acme;
    acme.id = "acme";
    acme.subjects.groups = {"acme"};
    acme.upstreams = std::vector<std::string>{"up-b"};
    doc->tenants.push_back(acme);
    auto f = stocked(doc);
    EXPECT_EQ(names_of(f.search_tools(everything, "read", 10, nullptr, 0)),
              std::vector<std::string>{"b__read_mail"});
    EXPECT_EQ(f.tools_named(everything, {"a__read_file"}, nullptr, 0).unknown,
              std::vector<std::string>{"a__read_file"});
}

TEST(tool_search, the_index_follows_the_cache) {
    auto f = stocked(searched_doc(false));
    EXPECT_TRUE(f.search_tools(everything, "weather", 10, nullptr, std::nullopt).empty());
    f.store(1, list_kind::tools, everything,
            json::array{tool_named("forecast", "Tells the weather of a city")}, start);
    EXPECT_EQ(names_of(f.search_tools(everything, "weather", 10, nullptr, std::nullopt)),
              std::vector<std::string>{"b__forecast"});
    f.drop(1, list_kind::tools, everything);
    EXPECT_TRUE(f.search_tools(everything, "weather", 10, nullptr, std::nullopt).empty());
}

TEST(tool_search, a_tool_only_an_apps_view_calls_is_never_found_for_the_model) {
    auto f = stocked(searched_doc(false));
    auto app_only = tool_named("refresh_chart", "Refreshes the chart of a file's figures");
    app_only["_meta"] = json::object{{"ui", {{"visibility", json::array{"app"}}}}};
    f.store(0, list_kind::tools, everything, json::array{app_only}, start);
    EXPECT_TRUE(f.search_tools(everything, "refresh chart", 10, nullptr, std::nullopt).empty());
    // A session may still select it: its tools/list, like any, is the host's to show.
    EXPECT_EQ(
        names_of(f.tools_named(everything, {"a__refresh_chart"}, nullptr, std::nullopt).tools),
        std::vector<std::string>{"a__refresh_chart"});
}

TEST(tool_search, a_selection_lists_only_tools_the_caller_may_call_in_the_order_named) {
    auto f = stocked(searched_doc(true));
    auto named =
        f.tools_named(everything, {"b__send_mail", "a__read_file", "nope"}, &alice, std::nullopt);
    EXPECT_EQ(names_of(named.tools), std::vector<std::string>{"a__read_file"});
    EXPECT_EQ(named.unknown, (std::vector<std::string>{"b__send_mail", "nope"}));
    actors::tool_listing listing{protocol::gate_tool_definitions(true),
                                 {"a__read_file", "b__send_mail"}};
    auto page = std::get<actors::list_answer>(
        f.page_searching(everything, listing, std::nullopt, 7, &alice, std::nullopt));
    EXPECT_EQ(names_of(page.result().at("tools").as_array()),
              (std::vector<std::string>{"gate_search_tools", "gate_select_tools", "a__read_file"}));
}

TEST(gate_tools, their_names_and_definitions) {
    EXPECT_EQ(protocol::gate_tool_named("gate_search_tools"), protocol::gate_tool::search);
    EXPECT_EQ(protocol::gate_tool_named("gate_select_tools"), protocol::gate_tool::select);
    EXPECT_FALSE(protocol::gate_tool_named("gate_search_tool"));
    EXPECT_EQ(names_of(protocol::gate_tool_definitions(false)),
              std::vector<std::string>{"gate_search_tools"});
    for (const auto& d : protocol::gate_tool_definitions(true))
        EXPECT_EQ(d.at("inputSchema").at("type"), "object");
}

namespace {
json::object called_with(std::string_view arguments) {
    return {{"name", "gate_search_tools"}, {"arguments", json::parse(arguments)}};
}
std::string search_refusal(std::string_view arguments) {
    auto r = protocol::read_search(called_with(arguments));
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}
std::string select_refusal(std::string_view arguments) {
    auto r = protocol::read_select(called_with(arguments));
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}
} // namespace

TEST(gate_tools, a_search_reads_its_query_and_limit) {
    auto r = protocol::read_search(called_with(R"({"query":"read a file","limit":3.0})"));
    ASSERT_TRUE(std::holds_alternative<protocol::tool_search_request>(r));
    EXPECT_EQ(std::get<protocol::tool_search_request>(r).query, "read a file");
    EXPECT_EQ(std::get<protocol::tool_search_request>(r).limit, 3u);
    auto plain = protocol::read_search(called_with(R"({"query":"x"})"));
    EXPECT_EQ(std::get<protocol::tool_search_request>(plain).limit, protocol::default_search_limit);
}

TEST(gate_tools, every_bad_search_says_what_was_wrong) {
    EXPECT_NE(search_refusal("{}").find("needs query"), std::string::npos);
    EXPECT_NE(search_refusal(R"({"query":""})").find("non-empty"), std::string::npos);
    EXPECT_NE(search_refusal(R"({"query":7})").find("needs query"), std::string::npos);
    EXPECT_NE(
        search_refusal(R"({"query":")" + std::string(1025, 'x') + R"("})").find("at most 1024"),
        std::string::npos);
    for (auto limit : {"0", "51", "2.5", "-1", "1e300", "\"5\"", "18446744073709551615"})
        EXPECT_NE(search_refusal(std::string(R"({"query":"x","limit":)") + limit + "}")
                      .find("limit must be an integer from 1 to 50"),
                  std::string::npos)
            << limit;
    EXPECT_NE(search_refusal(R"({"query":"x","filter":1})").find("not \"filter\""),
              std::string::npos);
    auto no_arguments = protocol::read_search(json::object{{"name", "gate_search_tools"}});
    EXPECT_NE(std::get<std::string>(no_arguments).find("arguments as an object"),
              std::string::npos);
}

TEST(gate_tools, a_selection_reads_distinct_names_within_bounds) {
    auto r = protocol::read_select(called_with(R"({"names":["a__x","b__y","a__x"]})"));
    ASSERT_TRUE(std::holds_alternative<protocol::tool_select_request>(r));
    EXPECT_EQ(std::get<protocol::tool_select_request>(r).names,
              (std::vector<std::string>{"a__x", "b__y"}));
    EXPECT_NE(select_refusal("{}").find("needs names"), std::string::npos);
    EXPECT_NE(select_refusal(R"({"names":[1]})").find("names[0] is not a string"),
              std::string::npos);
    EXPECT_NE(select_refusal(R"({"names":[""]})").find("names[0] must be 1 to 256 bytes"),
              std::string::npos);
    json::array many(257, json::value("x"));
    EXPECT_NE(select_refusal(json::serialize(json::object{{"names", many}})).find("at most 256"),
              std::string::npos);
}

TEST(gate_tools, answers_carry_text_for_a_model_and_structure_for_a_program) {
    auto found = protocol::search_result(json::array{tool_named("a__x", "does x")}, "x");
    EXPECT_EQ(found.at("structuredContent").at("tools").as_array().size(), 1u);
    EXPECT_NE(json::serialize(found.at("content")).find("a__x"), std::string::npos);
    auto none = protocol::search_result(json::array{}, "weather");
    EXPECT_NE(json::serialize(none.at("content")).find("No tool you may call matches"),
              std::string::npos);
    auto chosen = protocol::select_result({"a__x"}, {"zz"});
    EXPECT_EQ(chosen.at("structuredContent").at("unknown").as_array().size(), 1u);
    EXPECT_TRUE(protocol::gate_tool_error("bad").at("isError").as_bool());
}
