// What the MCP method groups count (gateway/mcp/): implemented by metrics, faked in the groups'
// unit tests.
#pragma once

#include <string>
#include <string_view>

namespace gate::gateway {

class upstream_counts {
public:
    // A request to `upstream` ended with `outcome` (protocol/outcome.hpp) after `seconds`.
    virtual void count(const std::string& upstream, std::string_view outcome, double seconds) = 0;
    // A tool of `upstream`'s list left out of gate's list, and why.
    virtual void tool_dropped(const std::string& upstream, std::string_view reason) = 0;

protected:
    ~upstream_counts() = default;
};

class session_counts {
public:
    // A session ended to make room, or one refused, and why.
    virtual void count_eviction(std::string_view reason) = 0;
    virtual void count_refusal(std::string_view reason) = 0;

protected:
    ~session_counts() = default;
};

} // namespace gate::gateway
