// Reversing a short alias (protocol/name_codec.hpp) from the lists the router holds: an alias
// is derived from the name it stands for, so the upstream's list is the only table needed,
// and any instance of a fleet that lists the upstream reverses it the same way.
#include "actors/federation/federation.hpp"

#include <set>

namespace gate::actors {

namespace json = boost::json;

std::variant<std::string, route_error> federation::own_name(std::size_t upstream,
                                                            protocol::list_kind kind,
                                                            std::string_view client,
                                                            std::string_view decoded) const {
    const auto& codec = snap_->codec;
    bool known = false;
    std::set<std::string_view> listed_so;
    each_profile(upstream, kind, [&](const json::array& items) {
        known = true;
        for (const auto& item : items) {
            const auto* o = item.if_object();
            const auto* n = o ? o->if_contains("name") : nullptr;
            if (n && n->is_string() && codec.client_name(upstream, n->get_string()) == client)
                listed_so.insert(n->get_string());
        }
    });
    // The messages name no upstream: a caller whose tenant does not see it learns nothing.
    std::string name(client);
    if (listed_so.size() == 1)
        return std::string(*listed_so.begin());
    if (listed_so.size() > 1)
        return route_error{protocol::gateway_error::unknown_namespace,
                           "\"" + name + "\" is the shortened name of " +
                               std::to_string(listed_so.size()) +
                               " names of one upstream (routing.maxNameLength); none of them "
                               "can be called by it",
                           name};
    if (known)
        return std::string(decoded); // not an alias after all: the name as sent
    std::string what = kind == protocol::list_kind::prompts ? "prompt" : "tool";
    return route_error{protocol::gateway_error::upstream_unreachable,
                       "\"" + name + "\" may be the shortened name of a " + what +
                           " (routing.maxNameLength); gate reverses it from its upstream's " +
                           "list, which it could not fetch: try again",
                       name, false, true};
}

} // namespace gate::actors
