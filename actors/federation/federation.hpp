// The federation's decisions, as plain C++ with time passed in: which upstreams a list must
// be fetched from, the per-upstream list cache, the merged and paged answer, which upstream
// owns a resource URI, and where a named call goes. The router actor is a thin shell over it.
#pragma once

#include "actors/federation/snapshot.hpp"
#include "protocol/client_profile.hpp"
#include "protocol/cursor_codec.hpp"
#include "protocol/gateway_error.hpp"
#include "protocol/list_kind.hpp"
#include "protocol/tool_index.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

namespace gate::actors {

using time_point = std::chrono::steady_clock::time_point;

// Where a named call goes, with the params rewritten for the upstream: the request's canonical
// identity, whichever spelling the client used (a namespaced name, its short alias or full
// name, a view's ui:// URI as gate lists it or as its upstream wrote it). Policy, pins, tool
// limits, the decision hook and audit read only this (docs/security.md).
struct route {
    std::size_t upstream;
    boost::json::object params; // the upstream's own name or URI in it
    std::string name;           // the name or URI gate lists the item by
    // Whether the client sent another spelling than `name`: the full namespaced name of a
    // shortened one, or a view's own URI (route_sent_spelling). An upstream the caller's
    // tenant does not see is refused echoing what was sent, as a name no upstream owns is. A
    // flag, not a copy: the main path's route carries no second string.
    bool respelled = false;
};

// The spelling the client sent for `target` (routed for `method`).
std::string route_sent_spelling(const snapshot& snap, std::string_view method, const route& target);

struct route_error {
    protocol::gateway_error error; // how it is answered (protocol/gateway_error)
    std::string message;
    std::string name;
    bool needs_resource_lists = false; // owner unknown: list resources, then route again
    // A short alias whose upstream's list is not known (protocol/name_codec.hpp): list the
    // method's kind, then route again.
    bool needs_name_lists = false;
};

// One page of a list. Its items are cut and serialized once per list change and shared by
// every request for that page; only the cursor is each caller's own.
struct list_answer {
    protocol::list_kind kind = protocol::list_kind::tools;
    std::shared_ptr<const std::string> items; // the page's items: a JSON array, as text
    std::optional<std::string> next_cursor;
    std::size_t items_served = 0;

    // {"<key>":[...],"nextCursor":"..."} as text, and parsed for callers that amend it.
    std::string result_text() const;
    boost::json::object result() const;
};

// The answers for a name whose namespace no upstream owns, and for a URI no upstream lists
// (also given for an upstream the caller's tenant does not see: it must look the same).
route_error unknown_name(const std::string& name);
route_error unknown_uri(const std::string& uri, bool needs_resource_lists = false);

class federation;

// A tools/list where tool search is on for the caller (docs/tool-search.md): gate's own tools,
// then the ones the session selected (as the client is listed them) that it may still call.
struct tool_listing {
    boost::json::array gate_tools;
    std::vector<std::string> selected;
};

// Named calls (tools/call, prompts/get, completion of a prompt argument, and a read or a
// subscription of an App's ui:// URI, which names its upstream) depend only on the
// immutable snapshot, so the transport resolves them without an actor round trip. nullopt:
// the method is not routed by name (params untouched), or, without `lists`, the name may be
// a short alias, which only the router's lists reverse. With a route, params have been moved
// into it.
std::optional<std::variant<route, route_error>> resolve_by_name(const snapshot& snap,
                                                                std::string_view method,
                                                                boost::json::object& params,
                                                                const federation* lists = nullptr);

class federation {
public:
    federation(std::shared_ptr<const snapshot> snap, protocol::cursor_codec cursors);
    // Merged lists hold views of the cache's item texts: moved (the cache's nodes stay where
    // they are), never copied.
    federation(federation&&) = default;
    federation& operator=(federation&&) = default;
    federation(const federation&) = delete;
    federation& operator=(const federation&) = delete;

    using client_profile = protocol::client_profile;

    // Lists are cached per client capability profile (protocol/client_profile.hpp): each
    // client is listed what the upstream lists a client like it.
    // Upstreams whose cached list for `profile` is missing or expired.
    std::vector<std::size_t> stale(protocol::list_kind kind, client_profile profile,
                                   time_point now) const;
    // `sources`: each item as the upstream wrote it (empty: not known), so that the list goes
    // on as written, numbers and all (protocol/json_preserve).
    void store(std::size_t upstream, protocol::list_kind kind, client_profile profile,
               boost::json::array items, time_point now, std::vector<std::string> sources = {});
    void drop(std::size_t upstream, protocol::list_kind kind, client_profile profile);
    // Each upstream's cached `kind` list for `profile` as it stands (expired or not),
    // unfiltered: the console's catalog. Upstreams with none cached are left out, and so are
    // those that take each caller's credential: what is held of one is the last caller's list.
    std::vector<std::pair<std::size_t, boost::json::array>> cached(protocol::list_kind kind,
                                                                   client_profile profile) const;
    void invalidate(std::size_t upstream);
    // The same, by the upstream's id; nothing when this snapshot has no such upstream.
    void invalidate_id(const std::string& id);
    const std::shared_ptr<const snapshot>& snapshot_ptr() const { return snap_; }

    // The page a cursor (or its absence) asks for, from what is cached now. With a policy in
    // the snapshot, only the items `who` (null: anonymous) may invoke are listed; with
    // `tenant` (its place in the snapshot's tenants), only the upstreams it sees.
    std::variant<list_answer, route_error> page(protocol::list_kind kind, client_profile profile,
                                                const std::optional<std::string>& cursor,
                                                std::uint64_t caller,
                                                const policy::principal* who = nullptr,
                                                std::optional<std::size_t> tenant = {}) const;

    // Tool search (protocol/tool_index) over `profile`'s merged tool list as cached now: the
    // best `limit` tools for `query` that `who` may call and `tenant` sees, as they are listed
    // (the policy's and the tenant's filter asked of each candidate, never after the cut).
    // tool_search.cpp.
    boost::json::array search_tools(client_profile profile, std::string_view query,
                                    std::size_t limit, const policy::principal* who,
                                    std::optional<std::size_t> tenant) const;
    // The tools named (as listed) that `who` may call and `tenant` sees, in the order named;
    // the other names in `unknown`.
    struct named_tools {
        boost::json::array tools;
        std::vector<std::string> unknown;
    };
    named_tools tools_named(client_profile profile, const std::vector<std::string>& names,
                            const policy::principal* who, std::optional<std::size_t> tenant) const;
    // The page of a tools/list with tool search on: `listing`'s gate tools and selected ones.
    std::variant<list_answer, route_error>
    page_searching(client_profile profile, const tool_listing& listing,
                   const std::optional<std::string>& cursor, std::uint64_t caller,
                   const policy::principal* who, std::optional<std::size_t> tenant) const;

    // The page of an uncached merged list (a client's tasks) that a cursor asks for.
    std::variant<list_answer, route_error> page_of(protocol::list_kind kind,
                                                   const boost::json::array& merged,
                                                   const std::optional<std::string>& cursor,
                                                   std::uint64_t caller) const;

    // With `tenant` (its place in the snapshot's tenants), a URI is looked for only among the
    // upstreams it sees, and a refusal names only those.
    std::variant<route, route_error> resolve(std::string_view method, boost::json::object params,
                                             std::optional<std::size_t> tenant = {}) const;
    bool resource_lists_known() const;
    // The upstream's own name for `client`, a tool's or prompt's name of the shape of a short
    // alias (its decoded rest `decoded`): the one name in the upstream's cached `kind` lists
    // (any profile) that is listed as `client`; `decoded` itself when none is but the lists
    // are known. Refused when two names are listed so (an upstream whose names collide) or
    // when no list of `upstream` is known yet (needs_name_lists). name_aliases.cpp.
    std::variant<std::string, route_error> own_name(std::size_t upstream, protocol::list_kind kind,
                                                    std::string_view client,
                                                    std::string_view decoded) const;

private:
    struct entry {
        boost::json::array items;
        time_point expires;
        std::vector<std::string> sources; // as many as items, or none
    };
    // Whether `tenant` (none: every upstream) sees `upstream`.
    bool seen_by(std::size_t upstream, std::optional<std::size_t> tenant) const;
    std::optional<std::size_t> owner_of_uri(std::string_view uri,
                                            std::optional<std::size_t> tenant) const;
    // Whether a cached resource list of `upstream` (any profile) holds `uri`.
    bool lists_uri(std::size_t upstream, std::string_view uri) const;
    // A ui:// URI as its upstreams wrote it, listed by more than one of them: the refusal
    // naming each one's name here (protocol/ui_uri.hpp).
    std::optional<route_error> shared_view(std::string_view uri,
                                           std::optional<std::size_t> tenant) const;
    // A kind's merged list as the cache holds it now, and its fingerprint: made on the first
    // page after a change and reused until the next (a warm list costs no merge).
    // A page as served: its items as text, how many, and where the next one starts.
    struct cut_page {
        std::shared_ptr<const std::string> items;
        std::size_t count = 0;
        std::optional<std::uint32_t> next_offset;
    };
    using page_cache = std::map<std::uint32_t, cut_page>; // by offset
    // A merged tool list's search index (tool_search.cpp), and its tools by name.
    struct search_index {
        protocol::tool_index index;
        std::unordered_map<std::string_view, std::uint32_t> by_name; // into the list's items
    };
    struct merged_list {
        boost::json::array items;
        std::vector<std::string_view> sources; // into the cache's entries, which outlive it
        std::uint64_t fingerprint = 0;
        mutable page_cache pages; // made on first request, dropped with the list
        // Each item's upstream and its place in that upstream's cached list (the policy asks
        // of the item as the upstream wrote it).
        std::vector<std::uint32_t> upstream_of, own_at;
        // With a policy, each caller's verdicts on the tools a search offers it (1 offered, 0
        // not, -1 not asked yet), by its verified claims and tenant: a caller that may call
        // few tools asks the policy of each candidate once per list, not once per search.
        mutable std::unordered_map<std::string, std::vector<std::int8_t>> verdicts;
        // The tools' search index, made on the first search after a change. Its name map views
        // the items' strings: owned by this list alone (a copy would view another's items).
        mutable std::unique_ptr<const search_index> search;
    };
    // Whether `who` may invoke `item` (as `upstream` wrote it), by the snapshot's policy, for a
    // list; true without a policy.
    bool may_list(protocol::list_kind kind, std::size_t upstream, const boost::json::object& item,
                  const policy::principal* who) const;
    // Whether merged item `at` of `m` is one `who` may call and `tenant` sees.
    bool offered(const merged_list& m, std::uint32_t at, client_profile profile,
                 const policy::principal* who, std::optional<std::size_t> tenant) const;
    // The same, and a tool a model may be shown: a search's result is read by the model, so a
    // tool only an App's view calls (visibility ["app"]) is not one.
    bool found_for_model(const merged_list& m, std::uint32_t at, client_profile profile,
                         const policy::principal* who, std::optional<std::size_t> tenant) const;
    const search_index& index_of(const merged_list& m) const;
    // What identifies a caller to the policy: its verified issuer, subject and claims.
    static std::string verified_claims_key(const policy::principal* who);
    const merged_list& merged(protocol::list_kind kind, client_profile profile) const;
    // `pages`: where cut pages of this list are kept (null: an uncached list).
    // `sources`: the items' texts (null or short: written from their values).
    std::variant<list_answer, route_error> page_at(protocol::list_kind kind,
                                                   const boost::json::array& merged,
                                                   const std::vector<std::string_view>* sources,
                                                   std::uint64_t fingerprint,
                                                   const std::optional<std::string>& cursor,
                                                   std::uint64_t caller, page_cache* pages) const;

    std::shared_ptr<const snapshot> snap_;
    protocol::cursor_codec cursors_;
    using cache_key = std::tuple<std::size_t, protocol::list_kind, client_profile>;
    std::map<cache_key, entry> cache_;
    mutable std::map<std::pair<protocol::list_kind, client_profile>, merged_list> merged_;
    // With a policy: each caller's filtered list, until the cache changes (at most this many).
    static constexpr std::size_t max_filtered = 1024;
    mutable std::map<std::tuple<protocol::list_kind, client_profile, std::string>, merged_list>
        filtered_;
    // Every profile's cached list of one upstream and kind, in profile order.
    template <class Visit>
    void each_profile(std::size_t upstream, protocol::list_kind kind, Visit&& visit) const {
        for (auto it = cache_.lower_bound({upstream, kind, 0});
             it != cache_.end() && std::get<0>(it->first) == upstream &&
             std::get<1>(it->first) == kind;
             ++it)
            visit(it->second.items);
    }
};

} // namespace gate::actors
