// The tools each session selected to be listed where tool search is on (gate_select_tools,
// docs/tool-search.md): kept with the session, in the session table.
#pragma once

#include <string>
#include <vector>

namespace gate::gateway {

class tool_selections {
public:
    // The names a session selected, as listed (empty: none, or no such session).
    virtual std::vector<std::string> selected_tools(const std::string& session) = 0;
    // Replaces the session's selection and tells the session its tool list changed (on its GET
    // stream); false: no such session.
    virtual bool select_tools(const std::string& session, std::vector<std::string> names) = 0;

protected:
    ~tool_selections() = default;
};

} // namespace gate::gateway
