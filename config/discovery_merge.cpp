#include "config/discovery_merge.hpp"

#include "config/discovery_containment.hpp"
#include "config/json_view.hpp"
#include "config/read_json.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gate::config {

namespace {

namespace json = boost::json;

constexpr std::string_view served_prefix = "discovered ";

// "/upstreams/7/url" with 5 configured upstreams -> "discovered /upstreams/2/url".
std::string served_pointer(const std::string& merged, std::size_t configured) {
    constexpr std::string_view head = "/upstreams/";
    if (!merged.starts_with(head))
        return merged;
    auto rest = merged.substr(head.size());
    auto end = rest.find('/');
    auto index = rest.substr(0, end);
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos)
        return merged;
    auto i = std::stoull(index);
    if (i < configured)
        return merged;
    return std::string(served_prefix) + std::string(head) + std::to_string(i - configured) +
           (end == std::string::npos ? "" : rest.substr(end));
}

merge_result refused(std::string pointer, std::string reason) {
    return {nullptr, {error{std::move(pointer), std::move(reason)}}, {}};
}

} // namespace

merge_result merge_discovered(const document& configured, std::string_view served) {
    if (!configured.discovery || !configured.source.text)
        return refused("", "the configured document has no discovery section");
    detail::sink errors;
    auto body = detail::read_json(served, errors);
    if (!body || !errors.empty()) {
        auto list = errors.take();
        for (auto& e : list)
            e.pointer = std::string(served_prefix) + e.pointer;
        if (list.empty())
            list.push_back({std::string(served_prefix), "is not JSON"});
        return {nullptr, std::move(list), {}};
    }
    const auto* obj = body->if_object();
    if (!obj)
        return refused(std::string(served_prefix), "must be a JSON object {\"upstreams\": [...]}");
    for (const auto& kv : *obj)
        if (kv.key() != "upstreams")
            return refused(std::string(served_prefix) + "/" + std::string(kv.key()),
                           "is not part of a discovery document, which holds only "
                           "\"upstreams\"");
    const auto* found = obj->if_contains("upstreams");
    if (!found || !found->is_array())
        return refused(std::string(served_prefix) + "/upstreams",
                       "is required: the list of discovered upstreams (it may be empty)");

    auto root = json::parse(*configured.source.text);
    auto& top = root.as_object();
    json::array merged;
    if (const auto* mine = top.if_contains("upstreams"); mine && mine->is_array())
        merged = mine->get_array();
    auto n_configured = merged.size();
    for (const auto& u : found->get_array())
        merged.push_back(u);
    top["upstreams"] = std::move(merged);

    auto result = parse(json::serialize(root), acceptance::enforced, configured.source.base_dir);
    for (auto& e : result.errors)
        e.pointer = served_pointer(e.pointer, n_configured);
    if (!result.doc)
        return {nullptr, std::move(result.errors), {}};
    auto doc = std::make_shared<document>(*result.doc);
    doc->source = configured.source; // what a reload merges into is still the configured text
    merge_result out;
    std::vector<upstream> kept(doc->upstreams.begin(), doc->upstreams.begin() + n_configured);
    for (std::size_t i = n_configured; i < doc->upstreams.size(); ++i) {
        auto& u = doc->upstreams[i];
        u.discovered = true;
        auto at = std::string(served_prefix) + "/upstreams/" + std::to_string(i - n_configured);
        if (auto why = containment_errors(*doc->discovery, u, at); !why.empty())
            out.refused.push_back({i - n_configured, u.id, std::move(why)});
        else
            kept.push_back(std::move(u));
    }
    // Nothing else in the document depends on an upstream being present when discovery is
    // configured (policy and tenant references may name ids not served), so leaving entries
    // out keeps the rest valid.
    doc->upstreams = std::move(kept);
    out.doc = std::move(doc);
    return out;
}

std::vector<std::string> refusal_lines(const std::vector<refused_upstream>& refused) {
    std::vector<std::string> out;
    for (const auto& r : refused)
        out.push_back(
            "the discovered upstream \"" + r.id +
            "\" is refused (left out, the rest of the document applies): " + one_line(r.errors));
    return out;
}

} // namespace gate::config
