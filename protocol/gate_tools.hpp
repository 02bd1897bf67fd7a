// gate's own tools (issue 50, tool search; docs/tool-search.md): where server.toolSearch is on
// for a caller, its tools/list holds these and the tools it selected, not every tool of the
// federation. gate_search_tools finds the tools the caller may call by what they do;
// gate_select_tools chooses which of them its session lists. Their names, definitions, the
// reading of their arguments and the shape of their answers; plain C++.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::protocol {

inline constexpr std::string_view search_tools_name = "gate_search_tools";
inline constexpr std::string_view select_tools_name = "gate_select_tools";

enum class gate_tool { search, select };
std::optional<gate_tool> gate_tool_named(std::string_view name);

// The bounds of their arguments.
inline constexpr std::size_t max_query_bytes = 1024;
inline constexpr std::size_t default_search_limit = 10;
inline constexpr std::size_t max_search_limit = 50;
inline constexpr std::size_t max_selection = 256;
inline constexpr std::size_t max_selected_name = 256;

// Their definitions as listed: the search for every client, the selection only for one with a
// session to keep it in (a 2026-07-28 client calls what it found by name).
boost::json::array gate_tool_definitions(bool with_select);

struct tool_search_request {
    std::string query;
    std::size_t limit = default_search_limit;
};
struct tool_select_request {
    std::vector<std::string> names; // distinct, in the order given; empty: list none
};
// A call's params read; the text says what was wrong (the call answers it as a tool error, the
// model's to mend).
std::variant<tool_search_request, std::string> read_search(const boost::json::object& params);
std::variant<tool_select_request, std::string> read_select(const boost::json::object& params);
// What is wrong with a call's arguments, read as `tool` reads them; nullopt: nothing.
std::optional<std::string> argument_problem(gate_tool tool, const boost::json::object& params);

// tools/call results: the tools as text for a model and as structured content for a program.
boost::json::object search_result(boost::json::array tools, std::string_view query);
// `selected`: the names now listed; `unknown`: names no tool the caller may call has.
boost::json::object select_result(const std::vector<std::string>& selected,
                                  const std::vector<std::string>& unknown);
// A tool error (isError) with `text`.
boost::json::object gate_tool_error(std::string text);

} // namespace gate::protocol
