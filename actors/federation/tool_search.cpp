// Tool search over a federation's merged tool list (docs/tool-search.md): the index is made
// once per list (on the first search after the cache changed) over every tool as listed; each
// search asks the caller's filter (its tenant's upstreams, the policy for a list) of the
// candidates, best first, so a tool the caller may not call is never a result and never takes
// a result's place.
#include "actors/federation/federation.hpp"
#include "protocol/tool_visibility.hpp"

namespace gate::actors {

namespace json = boost::json;
using protocol::list_kind;

namespace {

std::string_view string_at(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// A tool's title: its own, or its annotations' (the older place).
std::string_view title_of(const json::object& tool) {
    auto title = string_at(tool, "title");
    if (!title.empty())
        return title;
    const auto* a = tool.if_contains("annotations");
    return a && a->is_object() ? string_at(a->get_object(), "title") : std::string_view();
}

} // namespace

const federation::search_index& federation::index_of(const merged_list& m) const {
    if (m.search)
        return *m.search;
    auto made = std::make_unique<search_index>();
    made->by_name.reserve(m.items.size());
    for (std::uint32_t i = 0; i < m.items.size(); ++i) {
        const auto* tool = m.items[i].if_object();
        if (!tool) {
            made->index.add("", "", ""); // keeps ids aligned with the list
            continue;
        }
        auto name = string_at(*tool, "name");
        made->index.add(name, title_of(*tool), string_at(*tool, "description"));
        if (!name.empty())
            made->by_name.emplace(name, i); // a name listed twice: the first
    }
    m.search = std::move(made);
    return *m.search;
}

bool federation::offered(const merged_list& m, std::uint32_t at, client_profile profile,
                         const policy::principal* who, std::optional<std::size_t> tenant) const {
    if (at >= m.upstream_of.size() || !m.items[at].is_object())
        return false;
    auto upstream = m.upstream_of[at];
    if (!seen_by(upstream, tenant))
        return false;
    if (!snap_->policy)
        return true;
    auto entry = cache_.find({upstream, list_kind::tools, profile});
    if (entry == cache_.end() || m.own_at[at] >= entry->second.items.size())
        return false;
    const auto* own = entry->second.items[m.own_at[at]].if_object();
    return own && may_list(list_kind::tools, upstream, *own, who);
}

bool federation::found_for_model(const merged_list& m, std::uint32_t at, client_profile profile,
                                 const policy::principal* who,
                                 std::optional<std::size_t> tenant) const {
    return offered(m, at, profile, who, tenant) &&
           protocol::visible_to_model(m.items[at].get_object());
}

json::array federation::search_tools(client_profile profile, std::string_view query,
                                     std::size_t limit, const policy::principal* who,
                                     std::optional<std::size_t> tenant) const {
    const auto& m = merged(list_kind::tools, profile);
    const auto& idx = index_of(m);
    std::vector<std::int8_t>* known = nullptr;
    if (snap_->policy) {
        if (m.verdicts.size() >= max_filtered)
            m.verdicts.clear(); // bounded: many callers between two changes start over
        auto key = verified_claims_key(who) + "\ntenant " +
                   (tenant ? std::to_string(*tenant) : std::string("-"));
        auto [it, made] = m.verdicts.try_emplace(std::move(key));
        if (made)
            it->second.assign(m.items.size(), -1);
        known = &it->second;
    }
    auto hits = idx.index.search(query, limit, [&](std::uint32_t at) {
        if (!known)
            return found_for_model(m, at, profile, who, tenant);
        auto& verdict = (*known)[at];
        if (verdict < 0)
            verdict = found_for_model(m, at, profile, who, tenant) ? 1 : 0;
        return verdict == 1;
    });
    json::array out;
    out.reserve(hits.size());
    for (const auto& hit : hits)
        out.push_back(m.items[hit.tool]);
    return out;
}

federation::named_tools federation::tools_named(client_profile profile,
                                                const std::vector<std::string>& names,
                                                const policy::principal* who,
                                                std::optional<std::size_t> tenant) const {
    const auto& m = merged(list_kind::tools, profile);
    const auto& idx = index_of(m);
    named_tools out;
    for (const auto& name : names) {
        auto at = idx.by_name.find(name);
        if (at != idx.by_name.end() && offered(m, at->second, profile, who, tenant))
            out.tools.push_back(m.items[at->second]);
        else
            out.unknown.push_back(name);
    }
    return out;
}

std::variant<list_answer, route_error>
federation::page_searching(client_profile profile, const tool_listing& listing,
                           const std::optional<std::string>& cursor, std::uint64_t caller,
                           const policy::principal* who, std::optional<std::size_t> tenant) const {
    json::array items = listing.gate_tools;
    for (auto& tool : tools_named(profile, listing.selected, who, tenant).tools)
        items.push_back(std::move(tool));
    return page_of(list_kind::tools, items, cursor, caller);
}

} // namespace gate::actors
