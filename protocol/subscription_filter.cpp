#include "protocol/subscription_filter.hpp"

#include "protocol/modern_request.hpp"

namespace gate::protocol {

namespace json = boost::json;

namespace {

bool flag(const json::object& caps, std::string_view section, std::string_view name) {
    auto* s = caps.if_contains(section);
    auto* o = s ? s->if_object() : nullptr;
    auto* v = o ? o->if_contains(name) : nullptr;
    return v && v->is_bool() && v->get_bool();
}

} // namespace

bool subscription_filter::accepts(std::string_view method, std::string_view subject) const {
    if (method == "notifications/tools/list_changed")
        return tools_list_changed;
    if (method == "notifications/prompts/list_changed")
        return prompts_list_changed;
    if (method == "notifications/resources/list_changed")
        return resources_list_changed;
    if (method == "notifications/resources/updated")
        return resource_subscriptions.contains(std::string(subject));
    if (method == "notifications/tasks")
        return task_ids.contains(std::string(subject));
    return false;
}

json::object subscription_filter::to_json() const {
    json::object out;
    if (tools_list_changed)
        out["toolsListChanged"] = true;
    if (prompts_list_changed)
        out["promptsListChanged"] = true;
    if (resources_list_changed)
        out["resourcesListChanged"] = true;
    if (!resource_subscriptions.empty()) {
        json::array uris;
        for (const auto& u : resource_subscriptions)
            uris.emplace_back(u);
        out["resourceSubscriptions"] = std::move(uris);
    }
    if (!task_ids.empty()) {
        json::array ids;
        for (const auto& t : task_ids)
            ids.emplace_back(t);
        out["taskIds"] = std::move(ids);
    }
    return out;
}

subscription_filter subscription_filter::honoured_by(const json::object& capabilities) const {
    subscription_filter out;
    out.tools_list_changed = tools_list_changed && flag(capabilities, "tools", "listChanged");
    out.prompts_list_changed = prompts_list_changed && flag(capabilities, "prompts", "listChanged");
    out.resources_list_changed =
        resources_list_changed && flag(capabilities, "resources", "listChanged");
    if (flag(capabilities, "resources", "subscribe"))
        out.resource_subscriptions = resource_subscriptions;
    auto* ext = capabilities.if_contains("extensions");
    if (ext && ext->is_object() && ext->get_object().contains(tasks_extension))
        out.task_ids = task_ids;
    return out;
}

std::string_view notification_subject(const json::object& notification) {
    auto* m = notification.if_contains("method");
    auto* p = notification.if_contains("params");
    if (!m || !m->is_string() || !p || !p->is_object())
        return {};
    std::string_view member = m->get_string() == "notifications/resources/updated" ? "uri"
                              : m->get_string() == "notifications/tasks"           ? "taskId"
                                                                                   : "";
    auto* v = member.empty() ? nullptr : p->get_object().if_contains(member);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::variant<subscription_filter, std::string>
parse_subscription_filter(const json::object* params) {
    auto* n = params ? params->if_contains("notifications") : nullptr;
    if (!n || !n->is_object())
        return std::string("params.notifications must be an object");
    subscription_filter f;
    for (const auto& [key, value] : n->get_object()) {
        bool* target = key == "toolsListChanged"       ? &f.tools_list_changed
                       : key == "promptsListChanged"   ? &f.prompts_list_changed
                       : key == "resourcesListChanged" ? &f.resources_list_changed
                                                       : nullptr;
        if (target) {
            if (!value.is_bool())
                return "params.notifications." + std::string(key) + " must be a boolean";
            *target = value.get_bool();
        } else if (key == "resourceSubscriptions") {
            if (!value.is_array())
                return std::string("params.notifications.resourceSubscriptions must be an array "
                                   "of URIs");
            for (const auto& u : value.get_array()) {
                if (!u.is_string() || u.get_string().empty())
                    return std::string("params.notifications.resourceSubscriptions must hold "
                                       "non-empty URI strings");
                f.resource_subscriptions.emplace(u.get_string());
            }
        } else if (key == "taskIds") {
            // The tasks extension's member (SEP-2663).
            if (!value.is_array())
                return std::string("params.notifications.taskIds must be an array of task ids");
            if (value.get_array().size() > max_listened_tasks)
                return "params.notifications.taskIds names more than " +
                       std::to_string(max_listened_tasks) + " tasks";
            for (const auto& t : value.get_array()) {
                if (!t.is_string() || t.get_string().empty())
                    return std::string("params.notifications.taskIds must hold non-empty task "
                                       "id strings");
                f.task_ids.emplace(t.get_string());
            }
        }
        // Members of later revisions are ignored, as a server ignores what it does not know.
    }
    return f;
}

void stamp_subscription(json::object& notification, const json::value& id) {
    auto& p = notification["params"];
    if (!p.is_object())
        p = json::object{};
    auto& meta = p.as_object()["_meta"];
    if (!meta.is_object())
        meta = json::object{};
    meta.as_object()[meta_subscription_id] = id;
}

void strip_subscription(json::object& notification) {
    auto* p = notification.if_contains("params");
    auto* params = p ? p->if_object() : nullptr;
    auto* m = params ? params->if_contains("_meta") : nullptr;
    auto* meta = m ? m->if_object() : nullptr;
    if (!meta)
        return;
    meta->erase(meta_subscription_id);
    if (meta->empty())
        params->erase("_meta");
}

} // namespace gate::protocol
