// A tool's behaviour hints (`annotations` of a tools/list item: readOnlyHint, destructiveHint,
// idempotentHint, openWorldHint) as policy reads them. A hint the tool does not declare has
// MCP's default, which is the cautious reading: not read-only, destructive, not idempotent,
// open world. A tool gate has not listed is read the same way (docs/configuration.md).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gate::protocol {

struct tool_hints {
    enum hint : std::uint8_t { read_only = 1, destructive = 2, idempotent = 4, open_world = 8 };
    std::uint8_t set = destructive | open_world; // MCP's defaults

    // The hints `tool` declares (a boolean hint only; anything else keeps the default).
    static tool_hints of(const boost::json::object& tool);
    // The bit of a hint named as in MCP ("readOnlyHint"); nullopt for another name.
    static std::optional<hint> named(std::string_view name);
    bool has(hint h) const { return (set & h) != 0; }
    bool operator==(const tool_hints&) const = default;
};

} // namespace gate::protocol
