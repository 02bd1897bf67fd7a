// The body of GET /api/catalog (docs/operations.md, Introspection and the console): the
// tools, prompts and resources each upstream serves, each with whether the viewer may call it
// and the rule that decides (policy_explain, decided as a list shows it). An upstream with one
// credential for everyone shows gate's cached lists; one that takes each caller's credential
// shows the viewer's own listing, made for this read with the viewer's credential, or why
// there is none. Only the upstreams the viewer's tenant sees are shown (the others not even
// by id); nothing of another principal is told.
#pragma once

#include "actors/federation/router_messages.hpp"
#include "policy/policy_explain.hpp"

#include <array>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway {

// What the viewer's own credential listed of an upstream that takes each caller's.
struct caller_listing {
    std::size_t upstream; // its place
    // Tools, prompts and resources; nullopt: not listed.
    std::array<std::optional<boost::json::array>, 3> lists;
    std::string problem; // why not, when a kind could not be listed ("" when all were)
};

struct catalog_facts {
    const policy::policy_world& world;
    const policy::principal* viewer; // null: anonymous
    // gate's cached lists of each kind (read_cached_lists), by upstream's place: never one of
    // an upstream that takes each caller's credential.
    std::vector<actors::fetched_list> tools, prompts, resources;
    // The viewer's own listing of each such upstream its tenant sees.
    std::vector<caller_listing> own;
};

boost::json::object catalog_report(const catalog_facts& f);

} // namespace gate::gateway
