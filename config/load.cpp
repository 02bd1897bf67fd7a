#include "config/load.hpp"

#include "config/parse_sections.hpp"
#include "config/read_json.hpp"
#include "config/unsupported.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace gate::config {

namespace {

using detail::json::value;

// Document position of every pointer: where its value starts and where its subtree ends.
// Errors are reported in document order although sections are checked in a fixed order.
struct span {
    std::size_t first = 0;
    std::size_t last = 0;
};

std::size_t number_pointers(const value& v, const std::string& pointer,
                            std::map<std::string, span>& order) {
    std::size_t first = order.size();
    std::size_t last = first;
    order.emplace(pointer, span{first, first});
    if (const auto* obj = v.if_object()) {
        for (const auto& member : *obj) {
            last = number_pointers(member.value(), detail::child_pointer(pointer, member.key()),
                                   order);
        }
    } else if (const auto* arr = v.if_array()) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            last = number_pointers((*arr)[i], detail::child_pointer(pointer, i), order);
        }
    }
    order[pointer].last = last;
    return last;
}

// A missing member has no position of its own; it sorts after the last value of the nearest
// existing ancestor, where a reader would have looked for it.
std::size_t sort_key(std::string pointer, const std::map<std::string, span>& order) {
    if (auto it = order.find(pointer); it != order.end()) {
        return it->second.first * 2;
    }
    while (!pointer.empty()) {
        pointer.resize(pointer.rfind('/'));
        if (auto it = order.find(pointer); it != order.end()) {
            return it->second.last * 2 + 1;
        }
    }
    return 0;
}

void sort_in_document_order(std::vector<error>& errors, const value& root) {
    std::map<std::string, span> order;
    number_pointers(root, "", order);
    std::stable_sort(errors.begin(), errors.end(), [&](const error& a, const error& b) {
        return sort_key(a.pointer, order) < sort_key(b.pointer, order);
    });
}

load_result failure(std::string reason) {
    return {nullptr, {error{"", std::move(reason)}}};
}

} // namespace

std::string one_line(const std::vector<error>& errors) {
    std::string out;
    for (const auto& e : errors)
        out += (out.empty() ? "" : "; ") + e.pointer + ": " + e.reason;
    return out;
}

load_result parse(std::string_view json_text, acceptance accept, const std::string& base_dir) {
    detail::sink errors;
    auto root = detail::read_json(json_text, errors);
    if (!root) {
        return {nullptr, errors.take()};
    }
    auto facts = detail::gather_facts(*root);
    detail::object_view top(*root, "", errors,
                            {"upstreams", "auth", "policy", "audit", "server", "routing",
                             "discovery", "tenants", "tracing", "definitions"});
    auto doc = std::make_shared<document>();
    if (top.ok()) {
        detail::parse_upstreams(top, facts, doc->upstreams);
        detail::parse_auth(top, doc->auth);
        detail::parse_policy(top, facts, doc->policy);
        detail::parse_audit(top, doc->audit);
        detail::parse_server(top, facts, doc->server);
        detail::parse_routing(top, doc->upstreams, doc->routing);
        detail::parse_discovery(top, doc->discovery);
        detail::parse_tenants(top, facts, doc->tenants);
        detail::parse_tracing(top, doc->tracing);
        detail::parse_definitions(top, doc->definitions, base_dir);
        detail::check_federation_identity(*doc, errors);
        detail::check_tool_search(*doc, errors);
        bool user_accounts = std::any_of(doc->upstreams.begin(), doc->upstreams.end(),
                                         [](auto& u) { return u.auth.strategy == "user-account"; });
        if (user_accounts && doc->passthrough() && !errors.failed("/upstreams/0"))
            errors.add("/upstreams/0/namespace",
                       "a user-account upstream needs a namespace: without one, gate passes the "
                       "upstream's own initialize through, and a user with no account there yet "
                       "could not connect to be sent to the login");
        if (!user_accounts && doc->server.client_metadata_url && !errors.failed("/server"))
            errors.add("/server/clientMetadataUrl",
                       "names gate's OAuth client metadata, but no upstream's strategy is "
                       "user-account: gate is nobody's OAuth client");
        if (!user_accounts && doc->server.vault_operator_scope && !errors.failed("/server"))
            errors.add("/server/vault/operatorScope",
                       "names who may revoke users' connections, but no upstream's strategy is "
                       "user-account: there are none to revoke");
        if (user_accounts && doc->server.redis_url && !doc->server.vault_key_ref &&
            !errors.failed("/server"))
            errors.add("/server/redisUrl",
                       "with a user-account upstream, a shared store needs server.vault.keyRef: "
                       "users' tokens are kept there sealed under that key, never in clear");
    }
    if (accept == acceptance::enforced) {
        for (auto& e : refuse_unsupported(*root))
            if (!errors.failed(e.pointer))
                errors.add(std::move(e.pointer), std::move(e.reason));
    }
    if (!errors.empty()) {
        auto list = errors.take();
        sort_in_document_order(list, *root);
        return {nullptr, std::move(list)};
    }
    doc->source.text = std::make_shared<const std::string>(json_text);
    doc->source.base_dir = base_dir;
    return {std::move(doc), {}};
}

load_result load(std::string_view path_or_inline_json, acceptance accept) {
    auto first = path_or_inline_json.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && path_or_inline_json[first] == '{') {
        return parse(path_or_inline_json, accept);
    }
    std::string path(path_or_inline_json);
    if (path.empty()) {
        return failure("no configuration given: pass a file path or inline JSON");
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return failure("cannot read config file \"" + path + "\": it is a directory");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return failure("cannot read config file \"" + path + "\": " + std::strerror(errno));
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        return failure("cannot read config file \"" + path + "\": read failed");
    }
    return parse(text.str(), accept, std::filesystem::path(path).parent_path().string());
}

} // namespace gate::config
