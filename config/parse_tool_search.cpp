// server.toolSearch (docs/tool-search.md): on for every caller, or for the ones its subjects
// select. gate's own tools are called by fixed names, so a namespace that would spell them
// (its tools would be unreachable, or gate's would) is refused, and so is passthrough, which
// lists its one upstream as it is.
#include "config/parse_sections.hpp"
#include "protocol/gate_tools.hpp"

namespace gate::config::detail {

void parse_tool_search(const object_view& server_section, server& out) {
    const auto* v = server_section.find("toolSearch");
    if (v == nullptr)
        return;
    object_view o(*v, server_section.pointer_of("toolSearch"), server_section.errors(),
                  {"enabled", "subjects"});
    if (!o.ok())
        return;
    o.require("enabled", "true or false");
    out.tool_search.enabled = o.boolean("enabled").value_or(false);
    out.tool_search.subjects = parse_subjects(o, "subjects", false);
}

void check_tool_search(const document& doc, sink& errors) {
    if (!doc.server.tool_search.enabled || errors.failed("/server"))
        return;
    if (doc.passthrough()) {
        errors.add("/server/toolSearch/enabled",
                   "tool search needs a namespaced federation: with one upstream and no "
                   "namespace, gate passes that upstream through unchanged (give "
                   "upstreams[0] a namespace)");
        return;
    }
    const auto& sep = doc.routing.namespace_separator;
    for (std::size_t i = 0; i < doc.upstreams.size(); ++i) {
        const auto& ns = doc.upstreams[i].namespace_;
        if (!ns)
            continue;
        for (auto name : {protocol::search_tools_name, protocol::select_tools_name})
            if (name.size() > ns->size() + sep.size() && name.starts_with(*ns) &&
                name.substr(ns->size(), sep.size()) == sep)
                errors.add("/upstreams/" + std::to_string(i) + "/namespace",
                           quoted(*ns) + " with the separator " + quoted(sep) + " would spell " +
                               std::string(name) +
                               ", a tool of gate's own while server.toolSearch is enabled; "
                               "choose another namespace");
    }
}

} // namespace gate::config::detail
