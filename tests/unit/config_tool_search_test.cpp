// server.toolSearch (docs/tool-search.md): read, and refused where it cannot work (passthrough,
// a namespace that would spell gate's own tools) or is malformed, with a pointer and a reason.
#include "config/load.hpp"
#include "tests/unit/config_refusal.hpp"

#include <gtest/gtest.h>

using namespace gate::config;
using gate::config::testing::expect_refusal;

namespace {

std::string searching_doc(std::string_view tool_search, std::string_view upstream_namespace = "t",
                          std::string_view routing = "") {
    std::string doc = R"({"server":{"toolSearch":)" + std::string(tool_search) +
                      R"(},"upstreams":[{"id":"t","url":"http://127.0.0.1:9/mcp")";
    if (!upstream_namespace.empty())
        doc += R"(,"namespace":")" + std::string(upstream_namespace) + "\"";
    doc += "}]";
    if (!routing.empty())
        doc += R"(,"routing":)" + std::string(routing);
    return doc + "}";
}

} // namespace

TEST(config_tool_search, off_unless_enabled) {
    auto r = parse(R"({"upstreams":[{"id":"t","url":"http://127.0.0.1:9/mcp","namespace":"t"}]})",
                   acceptance::specification);
    ASSERT_NE(r.doc, nullptr);
    EXPECT_FALSE(r.doc->server.tool_search.enabled);
}

TEST(config_tool_search, enabled_for_everyone_or_for_the_subjects_named) {
    auto all = parse(searching_doc(R"({"enabled":true})"), acceptance::specification);
    ASSERT_NE(all.doc, nullptr) << (all.errors.empty() ? "" : all.errors[0].reason);
    EXPECT_TRUE(all.doc->server.tool_search.enabled);
    EXPECT_FALSE(all.doc->server.tool_search.subjects);
    auto some = parse(searching_doc(R"({"enabled":true,"subjects":{"groups":["agents"]}})"),
                      acceptance::specification);
    ASSERT_NE(some.doc, nullptr) << (some.errors.empty() ? "" : some.errors[0].reason);
    ASSERT_TRUE(some.doc->server.tool_search.subjects);
    EXPECT_EQ(some.doc->server.tool_search.subjects->groups, std::vector<std::string>{"agents"});
}

TEST(config_tool_search, every_malformed_value_is_refused_where_it_is) {
    expect_refusal(searching_doc("true"), "/server/toolSearch", "object");
    expect_refusal(searching_doc("{}"), "/server/toolSearch/enabled", "required");
    expect_refusal(searching_doc(R"({"enabled":"yes"})"), "/server/toolSearch/enabled",
                   "expected true or false");
    expect_refusal(searching_doc(R"({"enabled":true,"listing":"all"})"),
                   "/server/toolSearch/listing", "unknown");
    expect_refusal(searching_doc(R"({"enabled":true,"subjects":{}})"),
                   "/server/toolSearch/subjects", "is empty");
    expect_refusal(searching_doc(R"({"enabled":true,"subjects":{"scopes":["a"]}})"),
                   "/server/toolSearch/subjects/scopes", "unknown");
}

TEST(config_tool_search, passthrough_has_no_tools_of_gates_own_to_list) {
    expect_refusal(searching_doc(R"({"enabled":true})", ""), "/server/toolSearch/enabled",
                   "needs a namespaced federation");
    // Off, passthrough is what it was.
    EXPECT_NE(parse(searching_doc(R"({"enabled":false})", ""), acceptance::specification).doc,
              nullptr);
}

TEST(config_tool_search, a_namespace_that_would_spell_gates_tools_is_refused) {
    expect_refusal(searching_doc(R"({"enabled":true})", "gate", R"({"namespaceSeparator":"_"})"),
                   "/upstreams/0/namespace", "would spell gate_search_tools");
    expect_refusal(searching_doc(R"({"enabled":true})", "gate", R"({"namespaceSeparator":"_"})"),
                   "/upstreams/0/namespace", "would spell gate_select_tools");
    // With the usual separator, "gate" spells gate__..., which is not theirs.
    EXPECT_NE(parse(searching_doc(R"({"enabled":true})", "gate"), acceptance::specification).doc,
              nullptr);
    // Disabled, the namespace is anyone's.
    EXPECT_NE(parse(searching_doc(R"({"enabled":false})", "gate", R"({"namespaceSeparator":"_"})"),
                    acceptance::specification)
                  .doc,
              nullptr);
}
