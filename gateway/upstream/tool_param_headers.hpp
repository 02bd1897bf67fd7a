// The `x-mcp-header` annotations of one upstream's tools (protocol/param_headers), learnt from
// every tools/list gate fetches there: a tool whose annotations break the revision's rules is
// dropped from the list with a log line (a conforming client must not use it), the others'
// annotated parameters are remembered by tool name, so that gate's tools/call to a 2026-07-28
// upstream carries the `Mcp-Param-*` headers the tool asks for, and a 2026-07-28 client's own
// headers can be checked against its arguments.
#pragma once

#include "protocol/param_headers.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gate::gateway {

class tool_param_headers {
public:
    // Reads a fetched tools/list (its items, and their texts in `sources` when kept, index for
    // index): drops the invalid definitions (logged under `upstream`) and remembers the rest.
    void learn(boost::json::array& tools, std::vector<std::string>* sources,
               const std::string& upstream);
    // Why each tool was dropped, by name (dropped() of each).
    using reasons = std::unordered_map<std::string, std::string>;
    const reasons& dropped_all() const { return dropped_; }
    // The annotated parameters of `tool` (nullptr: none known).
    const protocol::param_headers* find(const std::string& tool) const;
    // Why `tool` was dropped from the last list that showed it (nullptr: it was not): a
    // client must not call a tool whose definition it cannot honour, and gate, the client
    // here, does not either.
    const std::string* dropped(const std::string& tool) const;
    // The tool, and its annotated parameters, whose own name `is_it` accepts (nullptr: none
    // does): a short alias is reversed so (protocol/name_codec.hpp).
    const std::pair<const std::string, protocol::param_headers>*
    find_if(const std::function<bool(std::string_view)>& is_it) const;
    // The header fields of a tools/call with `params` ({name, arguments}): the tool's own
    // annotated parameters from the arguments, then each of the client's `Mcp-Param-*` headers
    // gate does not write itself, forwarded as sent (`client`: may be null).
    protocol::header_fields fields_for(const boost::json::object& params,
                                       const protocol::sent_param_headers* client) const;

private:
    std::unordered_map<std::string, protocol::param_headers> by_tool_;
    static constexpr std::size_t max_dropped = 10000; // bounded: an upstream of ever new names
    reasons dropped_;
};

} // namespace gate::gateway
