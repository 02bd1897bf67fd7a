// The body of GET /api/catalog (docs/operations.md, Introspection and the console): the
// tools, prompts and resources each upstream serves, from gate's cached lists, each with
// whether the viewer may call it and the rule that decides (policy_explain, decided as a list
// shows it). Only the upstreams the viewer's tenant sees show their items; nothing of another
// principal is told.
#pragma once

#include "actors/federation/router_messages.hpp"
#include "actors/policy/policy_explain.hpp"

#include <boost/json/object.hpp>
#include <vector>

namespace gate::transport {

struct catalog_facts {
    const policy_world& world;
    const principal* viewer; // null: anonymous
    // gate's cached lists of each kind (read_cached_lists), by upstream's place.
    std::vector<fetched_list> tools, prompts, resources;
};

boost::json::object catalog_report(const catalog_facts& f);

} // namespace gate::transport
