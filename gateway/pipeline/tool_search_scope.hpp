// Whether server.toolSearch is on for a request's caller (docs/tool-search.md): stage 4 routes
// its calls of gate's own tools, and its tools/list is gate's tools and its selection.
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "policy/subjects_select.hpp"

namespace gate::gateway::pipeline {

inline bool searches_tools(const request_context& ctx) {
    const auto& search = ctx.view->snap->doc->server.tool_search;
    if (!search.enabled)
        return false;
    // An anonymous caller is selected only where no subjects are named.
    return !search.subjects ||
           (ctx.who.caller && policy::subjects_select(*search.subjects, *ctx.who.caller));
}

} // namespace gate::gateway::pipeline
