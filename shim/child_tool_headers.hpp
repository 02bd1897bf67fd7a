// The x-mcp-header annotations (2026-07-28, SEP-2243) of the shared child's tools, as the
// tools/list answers the shim relays show them, and the check the revision asks of a server:
// a stateless tools/call's Mcp-Param-* headers mirror its arguments. Over stdio the child
// never sees HTTP headers, so gate-stdio, its HTTP face, is the only one that can check them
// (docs/shim.md, "Stateless clients").
#pragma once

#include "protocol/param_headers.hpp"

#include <boost/json/object.hpp>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gate::shim {

class child_tool_headers {
public:
    // A tools/list answer (a page of it): each tool's annotations replace what was known of
    // it; a tool whose definition is invalid is forgotten (its client drops it anyway).
    void learn(const boost::json::object& answer);
    // nullopt when a tools/call (`params`) may go to the child: its tool's annotations are
    // not known, or its headers (`sent`) mirror its arguments. Otherwise what is wrong, for a
    // 400 / -32020.
    std::optional<std::string> mismatch(const boost::json::object* params,
                                        const protocol::sent_param_headers& sent) const;
    std::size_t size() const { return by_tool_.size(); }

private:
    static constexpr std::size_t max_tools = 10000; // bounded: a child of ever new names
    std::map<std::string, protocol::param_headers, std::less<>> by_tool_;
};

} // namespace gate::shim
