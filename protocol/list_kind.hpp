// The federated list methods and how each names its items.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace gate::protocol {

// `tasks` is listed per client (each client's tasks live in its own upstream sessions), so it
// is never cached and is not among the cached kinds below.
enum class list_kind : unsigned char { tools, prompts, resources, resource_templates, tasks };

// The kinds the shared list cache holds.
inline constexpr std::array all_list_kinds = {list_kind::tools, list_kind::prompts,
                                              list_kind::resources, list_kind::resource_templates};

struct list_traits {
    std::string_view method; // e.g. "tools/list"
    std::string_view key;    // array member of the result, e.g. "tools"
    bool rewrite_names;      // tools and prompts are namespaced; URIs never are
};

constexpr list_traits traits(list_kind k) {
    switch (k) {
    case list_kind::tools:
        return {"tools/list", "tools", true};
    case list_kind::prompts:
        return {"prompts/list", "prompts", true};
    case list_kind::resources:
        return {"resources/list", "resources", false};
    case list_kind::resource_templates:
        return {"resources/templates/list", "resourceTemplates", false};
    case list_kind::tasks:
        return {"tasks/list", "tasks", false};
    }
    return {"", "", false};
}

constexpr std::optional<list_kind> list_kind_of(std::string_view method) {
    for (auto k : all_list_kinds)
        if (traits(k).method == method)
            return k;
    return std::nullopt;
}

// Whether `method` is an upstream's news that one of its lists changed: the lists gate keeps
// of that upstream are stale, whichever of its streams the news came on.
constexpr bool is_list_changed(std::string_view method) {
    return method == "notifications/tools/list_changed" ||
           method == "notifications/prompts/list_changed" ||
           method == "notifications/resources/list_changed";
}

} // namespace gate::protocol
