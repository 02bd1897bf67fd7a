#include "actors/federation/federation.hpp"

#include "protocol/gateway_error.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/list_merge.hpp"
#include "protocol/ui_uri.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gate::actors {

namespace json = boost::json;
using protocol::list_kind;

namespace {

// Credentials minted per user (the spec's rule: their lists may differ per user): such an
// upstream's entry serves only the request that fetched it, with that caller's credential.
bool per_user(const config::upstream& u) {
    return u.auth.per_caller();
}

// An entry's item texts, in the order the merge keeps its items (none known: empty ones).
void append_sources(const std::vector<std::string>& sources, std::size_t items,
                    std::vector<std::string_view>& out) {
    for (std::size_t i = 0; i < items; ++i)
        out.push_back(sources.empty() ? std::string_view() : std::string_view(sources[i]));
}

// A page's items as a JSON array, each written from its upstream's text (a rewritten name
// aside) where that is known: a tool's schema lists its bounds as the upstream wrote them.
std::string page_text(const json::array& items, const std::vector<std::string_view>* sources,
                      std::size_t offset) {
    if (!sources || sources->size() < offset + items.size())
        return json::serialize(items);
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            out += ',';
        protocol::write_preserving(items[i], (*sources)[offset + i], out);
    }
    out += ']';
    return out;
}

// On success the params are moved into the route (the name rewritten in place); nullopt,
// params untouched: a name of the shape of a short alias and no `lists` to reverse it by.
std::optional<std::variant<route, route_error>> by_name(const snapshot& snap, json::object& params,
                                                        std::string_view key, list_kind kind,
                                                        const federation* lists) {
    auto* v = params.if_contains(key);
    if (!v || !v->is_string())
        return route_error{
            protocol::gateway_error::invalid_params,
            protocol::gateway_error_text(protocol::gateway_error::invalid_params,
                                         {"params." + std::string(key) + " must be a string"}),
            ""};
    std::string full(v->get_string());
    auto decoded = snap.codec.decode(full);
    if (!decoded)
        return unknown_name(full);
    std::string own(decoded->name);
    auto upstream = decoded->upstream;
    if (decoded->maybe_alias) {
        if (!lists)
            return std::nullopt;
        auto found = lists->own_name(upstream, kind, full, decoded->name);
        if (auto* err = std::get_if<route_error>(&found))
            return std::move(*err);
        own = std::move(std::get<std::string>(found));
    }
    // A long name's full spelling is listed as its short alias: the route names it so, as
    // when the alias was sent.
    if (const auto max = snap.codec.max_length(); max > 0 && full.size() > max) {
        auto listed = snap.codec.client_name(upstream, own);
        bool respelled = listed != full;
        *v = std::move(own);
        return route{upstream, std::move(params), std::move(listed), respelled};
    }
    *v = std::move(own);
    return route{upstream, std::move(params), std::move(full)};
}

// The route to `owner` of a URI it lists (`uri`, as sent): named as gate lists it, a view's
// rewritten (protocol/ui_uri.hpp).
route owned_uri_route(const protocol::name_codec& codec, std::size_t owner, json::object params,
                      const std::string& uri) {
    auto listed = protocol::client_ui_uri(codec, owner, uri);
    bool respelled = listed != uri;
    return route{owner, std::move(params), std::move(listed), respelled};
}

// A ui:// URI gate gave a client (`uri`, inside `params`) names its upstream: the route goes
// there under the upstream's own URI. nullopt, params untouched, for any other URI.
std::optional<std::variant<route, route_error>> by_ui_uri(const snapshot& snap,
                                                          json::object& params, json::value* uri) {
    auto ui = uri && uri->is_string() ? protocol::upstream_ui(snap.codec, uri->get_string())
                                      : std::nullopt;
    if (!ui)
        return std::nullopt;
    std::string listed(uri->get_string());
    *uri = std::move(ui->uri);
    return route{ui->upstream, std::move(params), std::move(listed)};
}

} // namespace

std::string route_sent_spelling(const snapshot& snap, std::string_view method,
                                const route& target) {
    if (!target.respelled)
        return target.name;
    // The upstream's own name or URI, where the route put it: a prompt's completion names it
    // in its reference.
    const auto* ref = target.params.if_contains("ref");
    const auto& at = ref && ref->is_object() ? ref->get_object() : target.params;
    bool named = method == "tools/call" || method == "prompts/get" || at.contains("name");
    const auto* own = at.if_contains(named ? "name" : "uri");
    std::string_view text = own && own->is_string() ? std::string_view(own->get_string()) : "";
    return named ? snap.codec.encode(target.upstream, text) : std::string(text);
}

route_error unknown_name(const std::string& name) {
    return route_error{
        protocol::gateway_error::unknown_namespace,
        protocol::gateway_error_text(protocol::gateway_error::unknown_namespace, {name}), name};
}

route_error unknown_uri(const std::string& uri, bool needs_resource_lists) {
    return route_error{
        protocol::gateway_error::unknown_resource,
        protocol::gateway_error_text(protocol::gateway_error::unknown_resource, {uri}), uri,
        needs_resource_lists};
}

std::optional<std::variant<route, route_error>> resolve_by_name(const snapshot& snap,
                                                                std::string_view method,
                                                                json::object& params,
                                                                const federation* lists) {
    if (method == "tools/call")
        return by_name(snap, params, "name", list_kind::tools, lists);
    if (method == "prompts/get")
        return by_name(snap, params, "name", list_kind::prompts, lists);
    if (method == "resources/read" || method == "resources/subscribe" ||
        method == "resources/unsubscribe")
        // An App's view names its upstream in its URI (protocol/ui_uri.hpp): routed by the
        // URI itself, listed or not. Any other URI's owner is the resource router's to know.
        return by_ui_uri(snap, params, params.if_contains("uri"));
    if (method != "completion/complete")
        return std::nullopt;
    auto* ref = params.if_contains("ref");
    auto* obj = ref ? ref->if_object() : nullptr;
    auto* type = obj ? obj->if_contains("type") : nullptr;
    if (type && *type == "ref/resource")
        return by_ui_uri(snap, params, obj->if_contains("uri"));
    if (!type || *type != "ref/prompt")
        return std::nullopt;
    auto r = by_name(snap, *obj, "name", list_kind::prompts, lists);
    if (!r)
        return r;
    if (auto* ok = std::get_if<route>(&*r)) {
        // The rewritten reference goes back into the whole params object.
        *ref = std::move(ok->params);
        ok->params = std::move(params);
    }
    return r;
}

federation::federation(std::shared_ptr<const snapshot> snap, protocol::cursor_codec cursors)
    : snap_(std::move(snap)), cursors_(cursors) {}

std::vector<std::size_t> federation::stale(list_kind kind, client_profile profile,
                                           time_point now) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < snap_->size(); ++i) {
        auto it = cache_.find({i, kind, profile});
        if (it == cache_.end() || it->second.expires <= now)
            out.push_back(i);
    }
    return out;
}

void federation::store(std::size_t upstream, list_kind kind, client_profile profile,
                       json::array items, time_point now, std::vector<std::string> sources) {
    const auto& cfg = snap_->upstream(upstream);
    auto ttl = std::chrono::milliseconds(cfg.cache_ttl_ms);
    // A negative TTL disables caching: the entry serves only the request that fetched it. So
    // do credentials minted per user.
    auto expires = ttl.count() > 0 && !per_user(cfg) ? now + ttl : now;
    if (sources.size() != items.size())
        sources.clear();
    // The same list again (a TTL's refresh, an upstream that takes each caller's credential
    // fetched per request, a list_changed that changed nothing): only its expiry moves, and
    // the merged lists, their pages and search index stay (they view the entry's texts).
    if (auto same = cache_.find({upstream, kind, profile});
        same != cache_.end() && same->second.items == items &&
        same->second.sources.size() == sources.size()) {
        same->second.expires = expires;
        return;
    }
    cache_[{upstream, kind, profile}] = entry{std::move(items), expires, std::move(sources)};
    merged_.erase({kind, profile});
    filtered_.clear();
}

void federation::drop(std::size_t upstream, list_kind kind, client_profile profile) {
    cache_.erase({upstream, kind, profile});
    merged_.erase({kind, profile});
    filtered_.clear();
}

std::vector<std::pair<std::size_t, json::array>> federation::cached(list_kind kind,
                                                                    client_profile profile) const {
    std::vector<std::pair<std::size_t, json::array>> out;
    for (std::size_t i = 0; i < snap_->size(); ++i)
        // A per-user upstream's entry is the last caller's list: never shown to another.
        if (auto it = cache_.find({i, kind, profile});
            it != cache_.end() && !per_user(snap_->upstream(i)))
            out.emplace_back(i, it->second.items);
    return out;
}

void federation::invalidate_id(const std::string& id) {
    if (auto it = snap_->upstream_by_id.find(id); it != snap_->upstream_by_id.end())
        invalidate(it->second);
}

void federation::invalidate(std::size_t upstream) {
    // The upstream's entries are one run of the map (its index leads the key): a storm of
    // list_changed from every upstream costs each its own entries, not a walk of them all.
    constexpr auto first_kind = static_cast<list_kind>(0);
    cache_.erase(cache_.lower_bound({upstream, first_kind, 0}),
                 cache_.lower_bound({upstream + 1, first_kind, 0}));
    merged_.clear();
    filtered_.clear();
}

const federation::merged_list& federation::merged(list_kind kind, client_profile profile) const {
    auto it = merged_.find({kind, profile});
    if (it != merged_.end())
        return it->second;
    std::vector<protocol::upstream_items> parts;
    merged_list m;
    for (std::size_t i = 0; i < snap_->size(); ++i)
        if (auto c = cache_.find({i, kind, profile}); c != cache_.end()) {
            parts.push_back({i, &c->second.items});
            append_sources(c->second.sources, c->second.items.size(), m.sources);
            for (std::size_t k = 0; k < c->second.items.size(); ++k) {
                m.upstream_of.push_back(static_cast<std::uint32_t>(i));
                m.own_at.push_back(static_cast<std::uint32_t>(k));
            }
        }
    m.items = protocol::merge_lists(kind, snap_->codec, parts);
    m.fingerprint = protocol::list_fingerprint(kind, m.items);
    return merged_.emplace(std::pair{kind, profile}, std::move(m)).first->second;
}

namespace {

// The method that invokes an item of a list, and the member that names it.
std::optional<std::pair<std::string_view, std::string_view>> invocation_of(list_kind kind) {
    switch (kind) {
    case list_kind::tools:
        return std::pair{std::string_view("tools/call"), std::string_view("name")};
    case list_kind::prompts:
        return std::pair{std::string_view("prompts/get"), std::string_view("name")};
    case list_kind::resources:
        return std::pair{std::string_view("resources/read"), std::string_view("uri")};
    case list_kind::resource_templates:
        return std::pair{std::string_view("resources/read"), std::string_view("uriTemplate")};
    default:
        return std::nullopt;
    }
}

} // namespace

std::variant<list_answer, route_error> federation::page(list_kind kind, client_profile profile,
                                                        const std::optional<std::string>& cursor,
                                                        std::uint64_t caller,
                                                        const policy::principal* who,
                                                        std::optional<std::size_t> tenant) const {
    std::vector<protocol::upstream_items> parts;
    // A tenant that sees some upstreams only is listed nothing of the others.
    if (tenant && !snap_->tenants->tenant(*tenant).upstreams)
        tenant.reset();
    // A caller never sees what it may not invoke (the policy filters before the page is cut,
    // so pages and cursors are the caller's own).
    auto gated = snap_->policy || tenant ? invocation_of(kind) : std::nullopt;
    if (!gated) {
        const auto& m = merged(kind, profile);
        return page_at(kind, m.items, &m.sources, m.fingerprint, cursor, caller, &m.pages);
    }
    // The same caller (the same verified claims) sees the same list until the cache changes.
    // Without a policy only the tenant's view filters: its principals share one list.
    std::string key =
        !snap_->policy && tenant ? "tenant\n" + std::to_string(*tenant) : verified_claims_key(who);
    if (auto hit = filtered_.find({kind, profile, key}); hit != filtered_.end())
        return page_at(kind, hit->second.items, &hit->second.sources, hit->second.fingerprint,
                       cursor, caller, &hit->second.pages);
    merged_list m;
    std::vector<json::array> kept;
    kept.reserve(snap_->size()); // parts point into it
    for (std::size_t i = 0; i < snap_->size(); ++i) {
        auto it = cache_.find({i, kind, profile});
        if (it == cache_.end())
            continue;
        if (tenant && !snap_->tenants->sees(*tenant, snap_->upstream(i).id))
            continue;
        auto& mine = kept.emplace_back();
        const auto& sources = it->second.sources;
        for (std::size_t k = 0; k < it->second.items.size(); ++k) {
            const auto& item = it->second.items[k];
            const auto* o = item.if_object();
            const auto* n = o ? o->if_contains(gated->second) : nullptr;
            if (!n || !n->is_string() || !may_list(kind, i, *o, who))
                continue;
            mine.push_back(item);
            m.sources.push_back(sources.empty() ? std::string_view() : sources[k]);
        }
        parts.push_back({i, &mine});
    }
    m.items = protocol::merge_lists(kind, snap_->codec, parts);
    m.fingerprint = protocol::list_fingerprint(kind, m.items);
    if (filtered_.size() >= max_filtered)
        filtered_.clear(); // bounded: many callers between two changes start over
    const auto& made =
        filtered_.emplace(std::tuple{kind, profile, std::move(key)}, std::move(m)).first->second;
    return page_at(kind, made.items, &made.sources, made.fingerprint, cursor, caller, &made.pages);
}

std::string federation::verified_claims_key(const policy::principal* who) {
    return who ? who->issuer + '\n' + who->subject + '\n' + json::serialize(who->claims)
               : std::string();
}

bool federation::may_list(list_kind kind, std::size_t upstream, const json::object& item,
                          const policy::principal* who) const {
    auto gated = invocation_of(kind);
    if (!snap_->policy || !gated)
        return true;
    const auto* n = item.if_contains(gated->second);
    if (!n || !n->is_string())
        return false;
    std::string_view name = n->get_string();
    bool named = kind == list_kind::tools || kind == list_kind::prompts;
    // As the client is listed it: a view's URI rewritten (protocol/ui_uri.hpp).
    auto client_name = named ? snap_->codec.client_name(upstream, name)
                             : protocol::client_ui_uri(snap_->codec, upstream, name);
    std::string_view method[] = {gated->first};
    policy::invocation what{snap_->upstream(upstream).id, method, name, client_name};
    what.listing = true;
    // A shortened name's full spelling, which a client may call it by too.
    std::string full;
    if (named && snap_->codec.max_length() > 0) {
        full = snap_->codec.encode(upstream, name);
        if (full != client_name)
            what.other_name = full;
    }
    if (kind == list_kind::tools)
        what.hints = protocol::tool_hints::of(item);
    return snap_->policy->decide(who, what).allowed;
}

std::variant<list_answer, route_error> federation::page_of(list_kind kind,
                                                           const json::array& merged,
                                                           const std::optional<std::string>& cursor,
                                                           std::uint64_t caller) const {
    return page_at(kind, merged, nullptr, protocol::list_fingerprint(kind, merged), cursor, caller,
                   nullptr);
}

std::variant<list_answer, route_error>
federation::page_at(list_kind kind, const json::array& merged,
                    const std::vector<std::string_view>* sources, std::uint64_t list_print,
                    const std::optional<std::string>& cursor, std::uint64_t caller,
                    page_cache* pages) const {
    // The snapshot version is part of the list's identity: a reload expires every cursor.
    auto fingerprint = list_print ^ (snap_->version * 0x9e3779b97f4a7c15ull);
    std::uint32_t offset = 0;
    if (cursor) {
        auto c = cursors_.decode(*cursor);
        if (!c || c->kind != kind || c->principal != caller)
            return route_error{
                protocol::gateway_error::invalid_cursor,
                protocol::gateway_error_text(protocol::gateway_error::invalid_cursor,
                                             {"restart the list from the beginning"}),
                ""};
        if (c->fingerprint != fingerprint)
            return route_error{
                protocol::gateway_error::expired_cursor,
                protocol::gateway_error_text(protocol::gateway_error::expired_cursor), ""};
        offset = c->offset;
    }
    auto cut = [&] {
        auto p = protocol::cut_page(merged, offset, snap_->doc->routing.page_size);
        return cut_page{std::make_shared<const std::string>(page_text(p.items, sources, offset)),
                        p.items.size(), p.next_offset};
    };
    cut_page page;
    if (!pages) {
        page = cut();
    } else if (auto hit = pages->find(offset); hit != pages->end()) {
        page = hit->second;
    } else {
        // Offsets come only from cursors gate sealed, so a list has few: bounded anyway.
        if (pages->size() >= 64)
            pages->clear();
        page = pages->emplace(offset, cut()).first->second;
    }
    list_answer answer;
    answer.kind = kind;
    answer.items = std::move(page.items);
    answer.items_served = page.count;
    if (page.next_offset)
        answer.next_cursor = cursors_.encode({kind, fingerprint, *page.next_offset, caller});
    return answer;
}

std::string list_answer::result_text() const {
    auto key = protocol::traits(kind).key;
    std::string out;
    out.reserve(items->size() + key.size() + (next_cursor ? next_cursor->size() + 20 : 0) + 8);
    out.append("{\"").append(key).append("\":").append(*items);
    if (next_cursor)
        out.append(",\"nextCursor\":\"").append(*next_cursor).append("\"");
    out.append("}");
    return out;
}

json::object list_answer::result() const {
    json::object r;
    r[protocol::traits(kind).key] = json::parse(*items);
    if (next_cursor)
        r["nextCursor"] = *next_cursor;
    return r;
}

bool federation::resource_lists_known() const {
    for (std::size_t i = 0; i < snap_->size(); ++i) {
        bool any = false;
        each_profile(i, list_kind::resources, [&](const json::array&) { any = true; });
        if (!any)
            return false;
    }
    return true;
}

bool federation::lists_uri(std::size_t upstream, std::string_view uri) const {
    bool owns = false;
    each_profile(upstream, list_kind::resources, [&](const json::array& items) {
        for (const auto& item : items)
            if (auto* obj = item.if_object())
                if (auto* u = obj->if_contains("uri");
                    u && u->is_string() && u->get_string() == uri)
                    owns = true;
    });
    return owns;
}

bool federation::seen_by(std::size_t upstream, std::optional<std::size_t> tenant) const {
    return !tenant || !snap_->tenants ||
           snap_->tenants->sees(*tenant, snap_->upstream(upstream).id);
}

std::optional<route_error> federation::shared_view(std::string_view uri,
                                                   std::optional<std::size_t> tenant) const {
    // Two upstreams running the same App list the same view: by the URI they wrote, a read
    // cannot tell which one is meant, and the first is not a guess gate makes. Only the
    // upstreams the caller's tenant sees count, and only they are named.
    if (snap_->codec.passthrough() || !uri.starts_with(protocol::ui_scheme))
        return std::nullopt;
    std::string which;
    std::size_t owners = 0;
    for (std::size_t i = 0; i < snap_->size(); ++i) {
        if (!seen_by(i, tenant) || !lists_uri(i, uri))
            continue;
        ++owners;
        which += (which.empty() ? "" : ", ") + protocol::client_ui_uri(snap_->codec, i, uri);
    }
    if (owners < 2)
        return std::nullopt;
    std::string text(uri);
    return route_error{protocol::gateway_error::unknown_resource,
                       "unknown resource URI \"" + text + "\": more than one upstream serves it (" +
                           which + "); read it by one of these",
                       text};
}

std::optional<std::size_t> federation::owner_of_uri(std::string_view uri,
                                                    std::optional<std::size_t> tenant) const {
    if (snap_->size() == 1)
        return 0;
    for (std::size_t i = 0; i < snap_->size(); ++i)
        if (seen_by(i, tenant) && lists_uri(i, uri))
            return i;
    // Not listed: a URI minted from a resource template belongs to the template's upstream.
    // The literal text before the first expression is the discriminating prefix.
    std::optional<std::size_t> best;
    std::size_t best_len = 0;
    for (std::size_t i = 0; i < snap_->size(); ++i) {
        if (!seen_by(i, tenant))
            continue;
        each_profile(i, list_kind::resource_templates, [&](const json::array& items) {
            for (const auto& item : items) {
                auto* obj = item.if_object();
                auto* t = obj ? obj->if_contains("uriTemplate") : nullptr;
                if (!t || !t->is_string())
                    continue;
                std::string_view tmpl = t->get_string();
                auto prefix = tmpl.substr(0, tmpl.find('{'));
                if (tmpl == uri ||
                    (!prefix.empty() && prefix.size() > best_len && uri.starts_with(prefix))) {
                    best = i;
                    best_len = tmpl == uri ? SIZE_MAX : prefix.size();
                }
            }
        });
    }
    return best;
}

std::variant<route, route_error> federation::resolve(std::string_view method, json::object params,
                                                     std::optional<std::size_t> tenant) const {
    if (auto named = resolve_by_name(*snap_, method, params, this))
        return std::move(*named);
    if (method == "resources/read" || method == "resources/subscribe" ||
        method == "resources/unsubscribe") {
        auto* uri = params.if_contains("uri");
        if (!uri || !uri->is_string())
            return route_error{protocol::gateway_error::invalid_params,
                               protocol::gateway_error_text(protocol::gateway_error::invalid_params,
                                                            {"params.uri must be a string"}),
                               ""};
        std::string text(uri->get_string());
        if (auto ambiguous = shared_view(text, tenant))
            return std::move(*ambiguous);
        // The upstream's own URI of a view: routed as the one gate lists it by.
        if (auto owner = owner_of_uri(text, tenant))
            return owned_uri_route(snap_->codec, *owner, std::move(params), text);
        return unknown_uri(text, !resource_lists_known());
    }
    if (method == "completion/complete") {
        auto* ref = params.if_contains("ref");
        auto* obj = ref ? ref->if_object() : nullptr;
        auto* type = obj ? obj->if_contains("type") : nullptr;
        if (type && *type == "ref/resource") {
            auto* uri = obj->if_contains("uri");
            if (uri && uri->is_string()) {
                std::string text(uri->get_string());
                if (auto owner = owner_of_uri(text, tenant))
                    return owned_uri_route(snap_->codec, *owner, std::move(params), text);
                return route_error{
                    protocol::gateway_error::unknown_completion_resource,
                    protocol::gateway_error_text(
                        protocol::gateway_error::unknown_completion_resource, {text}),
                    text, !resource_lists_known()};
            }
        }
        return route_error{
            protocol::gateway_error::invalid_params,
            protocol::gateway_error_text(
                protocol::gateway_error::invalid_params,
                {"params.ref must be a ref/prompt with a name or a ref/resource with a uri"}),
            ""};
    }
    if (snap_->codec.passthrough())
        return route{0, std::move(params), ""};
    return route_error{
        protocol::gateway_error::unsupported_method,
        protocol::gateway_error_text(protocol::gateway_error::unsupported_method, {method}), ""};
}

} // namespace gate::actors
