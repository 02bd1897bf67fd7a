// The router actor's interface: one message type per request, each with its reply channel.
#pragma once

#include "actors/federation/federation.hpp"
#include "actors/message_inspection.hpp"
#include "actors/reply.hpp"

#include <boost/describe/class.hpp>

namespace gate::actors {

struct fetched_list {
    std::size_t upstream;
    std::optional<boost::json::array> items; // nullopt: the upstream failed and is left out
    // Each item as the upstream wrote it (empty: not known), to be listed on as written.
    std::vector<std::string> sources = {};
};

struct list_plan {
    std::shared_ptr<const snapshot> snap;
    std::vector<std::size_t> fetch; // upstreams to ask; the rest are served from cache
    protocol::client_profile profile = protocol::full_profile; // whose list (client_profile.hpp)
    // Upstreams of `fetch` whose lists the fleet's shared cache held (moved out of `fetch`
    // on the io thread: gateway/mcp/fleet_sessions.cpp), completed like fetched ones.
    std::vector<fetched_list> from_fleet = {};
};

// Step 1 of a federated list: which upstreams must be fetched. Every question names the
// snapshot the request loaded: a request finishes on it even if a reload came meanwhile.
struct plan_list {
    std::shared_ptr<const snapshot> snap;
    protocol::list_kind kind;
    protocol::client_profile profile;
    reply_to<list_plan> reply;
};

// Step 2: store what was fetched, answer the requested page.
struct complete_list {
    std::shared_ptr<const snapshot> snap; // the one the plan was made on
    protocol::list_kind kind;
    protocol::client_profile profile;
    std::vector<fetched_list> fetched;
    std::optional<std::string> cursor;
    std::uint64_t caller;
    reply_to<std::variant<list_answer, route_error>> reply;
    std::shared_ptr<const policy::principal> who =
        nullptr;                            // for the policy's filter; null: anonymous
    std::optional<std::size_t> tenant = {}; // the caller's, for its view of upstreams
    // Tool search on for the caller: gate's tools and the session's selection are listed
    // instead of the whole list (federation::page_searching).
    std::shared_ptr<const tool_listing> searching = nullptr;
};

// What gate_search_tools or gate_select_tools found (federation::search_tools, tools_named).
struct found_tools {
    boost::json::array tools;
    std::vector<std::string> unknown; // names of a selection no offered tool has
};

// A call of gate's own tools: the lists fetched stored as complete_list does, then the search
// for `query` (at most `limit`), or with `names` the tools so named.
struct query_tools {
    std::shared_ptr<const snapshot> snap;
    protocol::client_profile profile;
    std::vector<fetched_list> fetched;
    std::string query;
    std::size_t limit = 0;
    std::optional<std::vector<std::string>> names;
    reply_to<found_tools> reply;
    std::shared_ptr<const policy::principal> who = nullptr;
    std::optional<std::size_t> tenant = {};
};

struct routed {
    std::shared_ptr<const snapshot> snap;
    std::variant<route, route_error> outcome;
};

// A named call: which upstream, with what params.
struct resolve_call {
    std::shared_ptr<const snapshot> snap;
    std::string method;
    boost::json::object params;
    reply_to<routed> reply;
    std::optional<std::size_t> tenant = {}; // the caller's: a URI's owner is one it sees
};

// A client's merged tasks (uncached): the page the cursor asks for.
struct page_tasks {
    std::shared_ptr<const snapshot> snap;
    boost::json::array merged;
    std::optional<std::string> cursor;
    std::uint64_t caller;
    reply_to<std::variant<list_answer, route_error>> reply;
};

// An upstream announced list_changed, or its lists must otherwise be refetched.
struct invalidate_upstream {
    std::string upstream; // its id: the same upstream in every snapshot that has it
};

// What the cache holds now of each upstream's `kind` list for `profile`, unfiltered, for the
// console's catalog (GET /api/catalog): the upstreams with no list cached are left out.
struct read_cached_lists {
    std::shared_ptr<const snapshot> snap;
    protocol::list_kind kind;
    protocol::client_profile profile;
    reply_to<std::vector<fetched_list>> reply;
};

// A reload: new requests route on the new snapshot with empty caches; requests in flight
// keep the state of the snapshot they loaded.
struct replace_snapshot {
    std::shared_ptr<const snapshot> snap;
};

BOOST_DESCRIBE_STRUCT(fetched_list, (), (upstream, items, sources))
BOOST_DESCRIBE_STRUCT(plan_list, (), (snap, kind, profile, reply))
BOOST_DESCRIBE_STRUCT(complete_list, (),
                      (snap, kind, profile, fetched, cursor, caller, reply, who, tenant, searching))
BOOST_DESCRIBE_STRUCT(tool_listing, (), (gate_tools, selected))
BOOST_DESCRIBE_STRUCT(found_tools, (), (tools, unknown))
BOOST_DESCRIBE_STRUCT(query_tools, (),
                      (snap, profile, fetched, query, limit, names, reply, who, tenant))
BOOST_DESCRIBE_STRUCT(resolve_call, (), (snap, method, params, reply, tenant))
BOOST_DESCRIBE_STRUCT(page_tasks, (), (snap, merged, cursor, caller, reply))
BOOST_DESCRIBE_STRUCT(invalidate_upstream, (), (upstream))
BOOST_DESCRIBE_STRUCT(read_cached_lists, (), (snap, kind, profile, reply))
BOOST_DESCRIBE_STRUCT(replace_snapshot, (), (snap))

} // namespace gate::actors
