#include "protocol/gate_tools.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <cmath>

namespace gate::protocol {

namespace json = boost::json;

std::optional<gate_tool> gate_tool_named(std::string_view name) {
    if (name == search_tools_name)
        return gate_tool::search;
    if (name == select_tools_name)
        return gate_tool::select;
    return std::nullopt;
}

namespace {

json::object search_definition() {
    json::object query{{"type", "string"},
                       {"minLength", 1},
                       {"maxLength", max_query_bytes},
                       {"description", "What the tool should do, in a few words (\"read a file\", "
                                       "\"create a calendar event\")."}};
    json::object limit{{"type", "integer"},
                       {"minimum", 1},
                       {"maximum", max_search_limit},
                       {"default", default_search_limit},
                       {"description", "How many tools to return at most."}};
    return {
        {"name", search_tools_name},
        {"title", "Search tools"},
        {"description",
         "Finds the tools you may call by what they do, best match first, among every tool of "
         "this gateway's servers. Returns their definitions: call a tool found by its name, as "
         "it is returned."},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"query", std::move(query)}, {"limit", std::move(limit)}}},
          {"required", json::array{"query"}},
          {"additionalProperties", false}}},
        {"outputSchema",
         {{"type", "object"},
          {"properties", {{"tools", {{"type", "array"}, {"items", {{"type", "object"}}}}}}},
          {"required", json::array{"tools"}}}},
        {"annotations", {{"readOnlyHint", true}, {"openWorldHint", false}}},
    };
}

json::object select_definition() {
    json::object names{{"type", "array"},
                       {"items", {{"type", "string"}, {"maxLength", max_selected_name}}},
                       {"maxItems", max_selection},
                       {"description", "The names of the tools to list, as the search returned "
                                       "them; an empty list lists none."}};
    return {
        {"name", select_tools_name},
        {"title", "Select tools"},
        {"description",
         "Chooses which tools this session's tool list holds besides these two: the named ones "
         "replace the ones selected before. The list changes at once (the client is told)."},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"names", std::move(names)}}},
          {"required", json::array{"names"}},
          {"additionalProperties", false}}},
        {"annotations",
         {{"readOnlyHint", false}, {"idempotentHint", true}, {"openWorldHint", false}}},
    };
}

// The call's arguments, an object; or why not.
std::variant<const json::object*, std::string> arguments_of(const json::object& params,
                                                            std::string_view tool) {
    const auto* a = params.if_contains("arguments");
    if (a && a->is_object())
        return &a->get_object();
    return std::string(tool) + " needs its arguments as an object";
}

std::optional<std::int64_t> integer_of(const json::value& v) {
    if (v.is_int64())
        return v.get_int64();
    if (v.is_uint64())
        return v.get_uint64() > 1000000 ? 1000000 : static_cast<std::int64_t>(v.get_uint64());
    // 5.0 is an integer in JSON Schema; 5.5 and 1e300 are not limits.
    if (v.is_double() && std::abs(v.get_double()) <= 1e6 &&
        std::trunc(v.get_double()) == v.get_double())
        return static_cast<std::int64_t>(v.get_double());
    return std::nullopt;
}

// An argument's name as echoed in a refusal: at most 64 bytes, never cut inside a character.
std::string echoed(std::string_view key) {
    if (key.size() <= 64)
        return std::string(key);
    std::size_t end = 64;
    while (end > 0 && (static_cast<unsigned char>(key[end]) & 0xC0) == 0x80)
        --end;
    return std::string(key.substr(0, end));
}

std::string text_of(const json::object& o) {
    return json::serialize(o);
}

} // namespace

json::array gate_tool_definitions(bool with_select) {
    json::array out{search_definition()};
    if (with_select)
        out.push_back(select_definition());
    return out;
}

std::variant<tool_search_request, std::string> read_search(const json::object& params) {
    auto args = arguments_of(params, search_tools_name);
    if (auto* why = std::get_if<std::string>(&args))
        return std::move(*why);
    const auto& a = *std::get<const json::object*>(args);
    for (const auto& [key, _] : a)
        if (key != "query" && key != "limit")
            return "gate_search_tools takes query and limit, not \"" + echoed(key) + "\"";
    const auto* q = a.if_contains("query");
    if (!q || !q->is_string() || q->get_string().empty())
        return std::string("gate_search_tools needs query, a non-empty string");
    if (q->get_string().size() > max_query_bytes)
        return "query is " + std::to_string(q->get_string().size()) + " bytes; at most " +
               std::to_string(max_query_bytes);
    tool_search_request r{std::string(q->get_string())};
    if (const auto* l = a.if_contains("limit"); l && !l->is_null()) {
        auto n = integer_of(*l);
        if (!n || *n < 1 || *n > static_cast<std::int64_t>(max_search_limit))
            return "limit must be an integer from 1 to " + std::to_string(max_search_limit);
        r.limit = static_cast<std::size_t>(*n);
    }
    return r;
}

std::variant<tool_select_request, std::string> read_select(const json::object& params) {
    auto args = arguments_of(params, select_tools_name);
    if (auto* why = std::get_if<std::string>(&args))
        return std::move(*why);
    const auto& a = *std::get<const json::object*>(args);
    for (const auto& [key, _] : a)
        if (key != "names")
            return "gate_select_tools takes names, not \"" + echoed(key) + "\"";
    const auto* n = a.if_contains("names");
    if (!n || !n->is_array())
        return std::string("gate_select_tools needs names, an array of tool names");
    const auto& names = n->get_array();
    if (names.size() > max_selection)
        return "names has " + std::to_string(names.size()) + " entries; at most " +
               std::to_string(max_selection);
    tool_select_request r;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!names[i].is_string())
            return "names[" + std::to_string(i) + "] is not a string";
        std::string_view name = names[i].get_string();
        if (name.empty() || name.size() > max_selected_name)
            return "names[" + std::to_string(i) + "] must be 1 to " +
                   std::to_string(max_selected_name) + " bytes";
        if (std::find(r.names.begin(), r.names.end(), name) == r.names.end())
            r.names.emplace_back(name);
    }
    return r;
}

std::optional<std::string> argument_problem(gate_tool tool, const json::object& params) {
    if (tool == gate_tool::search) {
        auto read = read_search(params);
        if (auto* why = std::get_if<std::string>(&read))
            return std::move(*why);
        return std::nullopt;
    }
    auto read = read_select(params);
    if (auto* why = std::get_if<std::string>(&read))
        return std::move(*why);
    return std::nullopt;
}

json::object search_result(json::array tools, std::string_view query) {
    json::object structured{{"tools", std::move(tools)}};
    auto count = structured.at("tools").get_array().size();
    std::string text = count == 0 ? "No tool you may call matches \"" + std::string(query) +
                                        "\". Try other words for what the tool does."
                                  : text_of(structured);
    return {{"content", json::array{{{"type", "text"}, {"text", std::move(text)}}}},
            {"structuredContent", std::move(structured)}};
}

json::object select_result(const std::vector<std::string>& selected,
                           const std::vector<std::string>& unknown) {
    json::array listed(selected.begin(), selected.end());
    json::array missing(unknown.begin(), unknown.end());
    std::string text = "Your tool list now holds " + std::to_string(selected.size()) +
                       (selected.size() == 1 ? " selected tool." : " selected tools.");
    if (!unknown.empty())
        text += " No tool you may call is named " + json::serialize(missing) +
                ": search for them first.";
    return {
        {"content", json::array{{{"type", "text"}, {"text", std::move(text)}}}},
        {"structuredContent", {{"selected", std::move(listed)}, {"unknown", std::move(missing)}}}};
}

json::object gate_tool_error(std::string text) {
    return {{"content", json::array{{{"type", "text"}, {"text", std::move(text)}}}},
            {"isError", true}};
}

} // namespace gate::protocol
