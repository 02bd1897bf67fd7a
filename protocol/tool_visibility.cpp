#include "protocol/tool_visibility.hpp"

#include <string_view>

namespace gate::protocol {

namespace {

// Whether the tool's visibility names `who`. Absent, or not a list of strings, is the
// extension's default: every audience. A lone string is read as a list of one, so a server
// that wrote "app" for ["app"] does not open its tool to models.
bool visibility_names(const boost::json::object& tool, std::string_view who) {
    const auto* meta = tool.if_contains("_meta");
    const auto* m = meta ? meta->if_object() : nullptr;
    const auto* ui = m ? m->if_contains("ui") : nullptr;
    const auto* u = ui ? ui->if_object() : nullptr;
    const auto* visibility = u ? u->if_contains("visibility") : nullptr;
    if (!visibility)
        return true;
    if (visibility->is_string())
        return visibility->get_string() == who;
    const auto* list = visibility->if_array();
    if (!list)
        return true;
    for (const auto& v : *list)
        if (!v.is_string())
            return true;
    for (const auto& v : *list)
        if (v.get_string() == who)
            return true;
    return false;
}

} // namespace

bool visible_to_model(const boost::json::object& tool) {
    return visibility_names(tool, "model");
}

bool callable_by_app(const boost::json::object& tool) {
    return visibility_names(tool, "app");
}

} // namespace gate::protocol
