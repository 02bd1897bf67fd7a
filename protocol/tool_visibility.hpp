// MCP Apps' visibility of a tool (`_meta.ui.visibility`): "model", the agent may see and call
// it; "app", a view of its own server may call it. Absent means both. A client that runs no
// views (it did not declare the UI extension) has only a model, so a tool hidden from models
// is not for it (docs/apps.md, "Who may call an app-only tool").
#pragma once

#include <boost/json/object.hpp>

namespace gate::protocol {

// Whether `tool` (a tools/list item) is for the agent: no visibility, or one naming "model".
bool visible_to_model(const boost::json::object& tool);
// Whether a view may call `tool`: no visibility, or one naming "app".
bool callable_by_app(const boost::json::object& tool);

} // namespace gate::protocol
