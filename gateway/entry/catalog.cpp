#include "gateway/entry/catalog.hpp"

#include "gateway/upstream/upstream_credential.hpp"

namespace gate::gateway {

namespace json = boost::json;

namespace {

// A page shows at most this many items of one kind per upstream; `truncated` says so.
constexpr std::size_t max_items = 500;
constexpr std::size_t max_text = 280; // a description is a line on a page, not a manual

json::value short_text(const json::value* v) {
    if (!v || !v->is_string())
        return nullptr;
    std::string_view s = v->get_string();
    if (s.size() <= max_text)
        return json::string(s);
    return json::string(std::string(s.substr(0, max_text)) + "…");
}

// A tool's annotations as listed: its hints and title only, each a boolean or a short text.
json::object annotations_of(const json::object& tool) {
    json::object out;
    const auto* a = tool.if_contains("annotations");
    if (!a || !a->is_object())
        return out;
    for (const auto& [key, value] : a->get_object())
        if (value.is_bool())
            out[key] = value;
        else if (key == "title" && value.is_string())
            out[key] = short_text(&value);
    return out;
}

void decide(json::object& item, const catalog_facts& f, policy::explain_request what) {
    what.listing = true;
    auto got = explain(f.world, f.viewer, what);
    if (auto* e = std::get_if<policy::explained>(&got)) {
        item["allowed"] = e->allowed;
        item["ruleId"] = e->decision.rule_id ? json::value(*e->decision.rule_id) : nullptr;
        item["reason"] = e->reason;
        if (!e->entry.empty())
            item["entry"] = e->entry;
    } else {
        item["allowed"] = false;
        item["ruleId"] = nullptr;
        item["reason"] = std::get<std::string>(got);
    }
}

json::object item_json(protocol::list_kind kind, const json::object& o, std::size_t upstream,
                       const catalog_facts& f) {
    const auto& id = f.world.doc.upstreams[upstream].id;
    json::object item;
    policy::explain_request what;
    what.server = id;
    const auto* name = o.if_contains("name");
    std::string own = name && name->is_string() ? std::string(name->get_string()) : "";
    if (kind == protocol::list_kind::resources) {
        const auto* uri = o.if_contains("uri");
        what.method = "resources/read";
        what.uri = uri && uri->is_string() ? std::string(uri->get_string()) : "";
        item["uri"] = what.uri;
        item["name"] = own;
        if (const auto* m = o.if_contains("mimeType"); m && m->is_string())
            item["mimeType"] = *m;
    } else {
        what.method = kind == protocol::list_kind::tools ? "tools/call" : "prompts/get";
        what.name = own;
        item["name"] = f.world.codec.client_name(upstream, own);
        if (kind == protocol::list_kind::tools) {
            what.hints = protocol::tool_hints::of(o);
            item["annotations"] = annotations_of(o);
        }
    }
    if (auto t = short_text(o.if_contains("title")); !t.is_null())
        item["title"] = t;
    if (auto d = short_text(o.if_contains("description")); !d.is_null())
        item["description"] = d;
    decide(item, f, std::move(what));
    return item;
}

const actors::fetched_list* list_of(const std::vector<actors::fetched_list>& lists,
                                    std::size_t upstream) {
    for (const auto& l : lists)
        if (l.upstream == upstream && l.items)
            return &l;
    return nullptr;
}

// Whether the viewer's tenant sees the upstream (no tenant: every upstream).
bool sees(const catalog_facts& f, const std::string& id) {
    if (!f.world.tenants || !f.viewer)
        return true;
    auto t = f.world.tenants->resolve(*f.viewer);
    auto* i = std::get_if<std::size_t>(&t);
    return !i || f.world.tenants->sees(*i, id);
}

// One kind's items of upstream `i` (at most max_items), each with the viewer's decision.
void put_items(json::object& u, protocol::list_kind kind, const json::array& listed, std::size_t i,
               const catalog_facts& f) {
    json::array items;
    for (const auto& v : listed) {
        if (items.size() == max_items) {
            u["truncated"] = true;
            break;
        }
        if (const auto* o = v.if_object())
            items.push_back(item_json(kind, *o, i, f));
    }
    u[protocol::traits(kind).key] = std::move(items);
}

constexpr protocol::list_kind kinds[] = {protocol::list_kind::tools, protocol::list_kind::prompts,
                                         protocol::list_kind::resources};

// An upstream that takes each caller's credential: the viewer's own listing, or why none.
void put_own(json::object& u, std::size_t i, const catalog_facts& f) {
    u["listing"] = "caller";
    const caller_listing* own = nullptr;
    for (const auto& l : f.own)
        if (l.upstream == i)
            own = &l;
    if (!own) {
        u["unlisted"] = f.viewer ? "it was not listed with your credential"
                                 : "it takes each caller's own credential, and you are "
                                   "anonymous: sign in to see your own listing";
        return;
    }
    for (std::size_t k = 0; k < 3; ++k)
        if (own->lists[k])
            put_items(u, kinds[k], *own->lists[k], i, f);
    if (!own->problem.empty())
        u["unlisted"] = own->problem;
}

} // namespace

json::object catalog_report(const catalog_facts& f) {
    json::array upstreams;
    const auto& ups = f.world.doc.upstreams;
    for (std::size_t i = 0; i < ups.size(); ++i) {
        if (!sees(f, ups[i].id))
            continue; // its tenant does not see it: nothing of it is told, not even its id
        json::object u{{"id", ups[i].id}};
        u["visible"] = true;
        if (per_caller(ups[i].auth)) {
            put_own(u, i, f);
            upstreams.push_back(std::move(u));
            continue;
        }
        u["listing"] = "shared";
        const std::vector<actors::fetched_list>* lists[] = {&f.tools, &f.prompts, &f.resources};
        for (std::size_t k = 0; k < 3; ++k)
            if (const auto* l = list_of(*lists[k], i))
                put_items(u, kinds[k], *l->items, i, f);
        // else not listed (yet): the upstream did not answer, or has none
        upstreams.push_back(std::move(u));
    }
    json::object viewer{{"authenticated", f.viewer != nullptr}};
    if (f.viewer)
        viewer["principal"] = f.viewer->subject;
    return {{"upstreams", std::move(upstreams)}, {"viewer", std::move(viewer)}};
}

} // namespace gate::gateway
