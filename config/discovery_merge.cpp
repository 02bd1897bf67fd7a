#include "config/discovery_merge.hpp"

#include "config/json_view.hpp"
#include "config/read_json.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <cctype>

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

std::string host_of(const std::string& url) {
    auto u = boost::urls::parse_uri(url);
    if (!u)
        return {};
    std::string host = u->host();
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    for (auto& c : host)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return host;
}

template <class List> bool listed(const List& list, const std::string& v) {
    return std::find(list.begin(), list.end(), v) != list.end();
}

// The containment of `d` over one discovered upstream, reported at its served pointer.
void contain(const discovery& d, const upstream& u, const std::string& at,
             std::vector<error>& out) {
    const auto& a = u.auth;
    if (!d.allowed_secret_refs.empty()) {
        auto check = [&](const std::string& ref, std::string_view field) {
            if (!ref.empty() && !listed(d.allowed_secret_refs, ref))
                out.push_back({at + "/auth/" + std::string(field),
                               "names the secret " + ref +
                                   ", which discovery.allowedSecretRefs does not allow a "
                                   "discovered upstream to use"});
        };
        if (a.strategy == "static")
            check(a.secret_ref, "secretRef");
        if (a.client_auth_)
            check(a.client_auth_->secret_ref, "clientAuth/secretRef");
    }
    if (!d.allowed_credential_hosts.empty() && a.strategy != "none") {
        auto check = [&](const std::string& url, const std::string& pointer) {
            auto host = host_of(url);
            if (!listed(d.allowed_credential_hosts, host))
                out.push_back({pointer, "would send credentials (auth strategy " + a.strategy +
                                            ") to " + host +
                                            ", which is not in discovery.allowedCredentialHosts"});
        };
        for (std::size_t i = 0; i < u.urls.size(); ++i)
            check(u.urls[i], at + (u.single_url ? "/url" : "/urls/" + std::to_string(i)));
        if (!a.token_endpoint.empty())
            check(a.token_endpoint, at + "/auth/tokenEndpoint");
    }
}

load_result refused(std::string pointer, std::string reason) {
    return {nullptr, {error{std::move(pointer), std::move(reason)}}};
}

} // namespace

load_result merge_discovered(const document& configured, std::string_view served) {
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
        return {nullptr, std::move(list)};
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

    auto result = parse(json::serialize(root));
    for (auto& e : result.errors)
        e.pointer = served_pointer(e.pointer, n_configured);
    if (!result.doc)
        return result;
    auto doc = std::make_shared<document>(*result.doc);
    doc->source = configured.source; // what a reload merges into is still the configured text
    std::vector<error> contained;
    for (std::size_t i = n_configured; i < doc->upstreams.size(); ++i) {
        doc->upstreams[i].discovered = true;
        contain(*doc->discovery, doc->upstreams[i],
                std::string(served_prefix) + "/upstreams/" + std::to_string(i - n_configured),
                contained);
    }
    if (!contained.empty())
        return {nullptr, std::move(contained)};
    return {std::move(doc), {}};
}

} // namespace gate::config
