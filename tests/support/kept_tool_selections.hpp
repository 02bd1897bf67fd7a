// The routers' side of lists and the sessions' tool selections for the unit tests of the
// method groups (gateway/mcp/list_methods.hpp): a selection is kept per session and its
// list_changed counted; a tool search the test does not script finds nothing.
#pragma once

#include "gateway/mcp/list_methods.hpp"
#include "gateway/mcp/tool_selections.hpp"

#include <map>

namespace gate::test {

struct kept_tool_selections : gateway::list_router, gateway::tool_selections {
    std::map<std::string, std::vector<std::string>> selections;
    std::size_t list_changed = 0;
    std::optional<actors::found_tools> found = actors::found_tools{};
    struct asked_query {
        std::string text;
        std::size_t limit;
        std::optional<std::vector<std::string>> names;
    };
    std::vector<asked_query> queries;

    std::vector<std::string> selected_tools(const std::string& session) override {
        auto it = selections.find(session);
        return it == selections.end() ? std::vector<std::string>{} : it->second;
    }
    bool select_tools(const std::string& session, std::vector<std::string> names) override {
        if (session.empty())
            return false;
        selections[session] = std::move(names);
        ++list_changed;
        return true;
    }
    boost::asio::awaitable<std::optional<actors::found_tools>>
    query(const actors::list_plan&, std::vector<actors::fetched_list>, std::string text,
          std::size_t limit, std::optional<std::vector<std::string>> names,
          gateway::request_context&) override {
        queries.push_back({std::move(text), limit, std::move(names)});
        co_return found;
    }
};

} // namespace gate::test
