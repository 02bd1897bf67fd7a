#include "config/checks.hpp"
#include "config/parse_sections.hpp"

#include <map>

namespace gate::config::detail {

namespace {

// Pointers of the first entry that used each id / namespace, for uniqueness messages.
struct seen_names {
    std::map<std::string, std::string> ids;
    std::map<std::string, std::string> namespaces;
};

void read_endpoints(const object_view& o, upstream& u) {
    bool has_url = o.has("url");
    bool has_urls = o.has("urls");
    if (has_url && has_urls) {
        o.fail("urls", "cannot be combined with url; set exactly one of url (one endpoint) or "
                       "urls (equivalent replicas)");
    } else if (!has_url && !has_urls) {
        o.fail("url", "required: set exactly one of url (the upstream's MCP endpoint) or urls "
                      "(equivalent replicas)");
    }
    if (has_url) {
        if (auto url = read_http_url(o, "url", false)) {
            u.urls = {*url};
            u.single_url = true;
        }
    }
    if (const auto* arr = o.array("urls")) {
        u.single_url = false;
        std::string base = o.pointer_of("urls");
        if (arr->empty()) {
            o.fail("urls", "must list at least one endpoint");
        }
        std::map<std::string, std::size_t> first;
        for (std::size_t i = 0; i < arr->size(); ++i) {
            std::string ptr = child_pointer(base, i);
            const auto& item = (*arr)[i];
            if (!item.is_string()) {
                o.errors().add(ptr, "expected a string, got " + std::string(kind_name(item)));
                continue;
            }
            std::string url(item.get_string());
            if (auto problem = http_url_problem(url, false); !problem.empty()) {
                o.errors().add(ptr, quoted(url) + " " + problem);
                continue;
            }
            if (auto [it, fresh] = first.emplace(url, i); !fresh) {
                o.errors().add(ptr, quoted(url) + " repeats " + child_pointer(base, it->second) +
                                        "; replicas must be distinct endpoints");
                continue;
            }
            u.urls.push_back(url);
        }
    }
}

void read_namespace(const object_view& o, const facts& f, seen_names& seen, upstream& u) {
    if (!o.has("namespace")) {
        if (f.upstream_count > 1) {
            o.fail("namespace", "required when more than one upstream is configured; omitting it "
                                "(passthrough) is only valid with a single upstream");
        } else if (f.discovery) {
            o.fail("namespace",
                   "required when discovery is configured: discovered upstreams join the "
                   "federation, and passthrough (no namespace) is only valid with a single "
                   "upstream");
        }
        return;
    }
    auto ns = o.string("namespace");
    if (!ns) {
        return;
    }
    for (char c : *ns) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
            o.fail("namespace", quoted(*ns) + " must not contain whitespace or control "
                                              "characters; it becomes part of tool names");
            return;
        }
    }
    // Splitting `{namespace}{separator}{name}` at the first separator must give the namespace
    // back, so it may neither contain the separator nor end with a prefix of it.
    if (f.separator_known && (*ns + f.separator).find(f.separator) != ns->size()) {
        o.fail("namespace", quoted(*ns) + " must not contain the namespace separator " +
                                quoted(f.separator) +
                                " (nor end with part of it); public names are split at its "
                                "first occurrence");
        return;
    }
    std::string ptr = o.pointer_of("namespace");
    if (auto [it, fresh] = seen.namespaces.emplace(*ns, ptr); !fresh) {
        o.fail("namespace",
               "duplicate namespace " + quoted(*ns) + " (already used by " + it->second +
                   "); every upstream's namespace must be unique so names route to one upstream");
        return;
    }
    u.namespace_ = *ns;
}

void read_guards(const object_view& o, upstream& u) {
    if (const auto* v = o.find("timeouts")) {
        object_view t(*v, o.pointer_of("timeouts"), o.errors(), {"connectMs", "requestMs"});
        u.timeouts.connect_ms = t.integer("connectMs", bound::positive).value_or(5000);
        u.timeouts.request_ms = t.integer("requestMs", bound::positive).value_or(60000);
    }
    if (const auto* v = o.find("circuitBreaker")) {
        object_view cb(*v, o.pointer_of("circuitBreaker"), o.errors(),
                       {"failureThreshold", "halfOpenAfterMs"});
        u.circuit_breaker.failure_threshold =
            cb.integer("failureThreshold", bound::positive).value_or(5);
        u.circuit_breaker.half_open_after_ms =
            cb.integer("halfOpenAfterMs", bound::non_negative).value_or(30000);
    }
    u.rate_limit = parse_rate_limit(o, "rateLimit");
    u.tool_limits = parse_tool_limits(o);
    u.budget = parse_budget(o, "budget");
    if (const auto* v = o.find("healthCheck")) {
        object_view hc(*v, o.pointer_of("healthCheck"), o.errors(), {"intervalMs"});
        hc.require("intervalMs", "the active probe interval in milliseconds");
        u.health_check_interval_ms = hc.integer("intervalMs", bound::positive);
    }
    u.cache_ttl_ms = o.integer("cacheTtlMs").value_or(30000);
    u.pin_definitions = o.one_of("pinDefinitions", {"off", "warn", "block"});
}

upstream parse_upstream(const object_view& o, const facts& f, seen_names& seen) {
    upstream u;
    o.require("id", "the upstream's id (lowercase letters, digits and hyphens)");
    if (auto id = o.string("id")) {
        if (!is_slug(*id)) {
            o.fail("id", quoted(*id) + " is not a valid id; use lowercase letters, digits and "
                                       "hyphens, starting with a letter or digit");
        } else if (auto [it, fresh] = seen.ids.emplace(*id, o.pointer_of("id")); !fresh) {
            o.fail("id", "duplicate upstream id " + quoted(*id) + " (already used by " +
                             it->second + "); ids must be unique");
        } else {
            u.id = *id;
        }
    }
    read_endpoints(o, u);
    read_namespace(o, f, seen, u);
    if (auto protocol = o.one_of("protocol", {"session", "auto", "2026-07-28"})) {
        u.protocol = *protocol == "auto"      ? protocol_mode::auto_
                     : *protocol == "session" ? protocol_mode::session
                                              : protocol_mode::v2026_07_28;
    }
    if (const auto* v = o.find("owner")) {
        object_view ow(*v, o.pointer_of("owner"), o.errors(), {"org", "team", "contact"});
        if (ow.ok()) {
            u.owner = owner{ow.string("org"), ow.string("team"), ow.string("contact")};
        }
    }
    u.labels = o.strings_map("labels").value_or(string_map{});
    parse_upstream_auth(o, f, u.auth);
    read_guards(o, u);
    return u;
}

} // namespace

void parse_upstreams(const object_view& root, const facts& f, std::vector<upstream>& out) {
    if (!root.has("upstreams")) {
        if (!f.discovery) {
            root.require("upstreams", "the list of upstream MCP servers (it may be omitted only "
                                      "when a discovery section supplies them)");
        }
        return;
    }
    const auto* arr = root.array("upstreams");
    if (arr == nullptr) {
        return;
    }
    if (arr->empty() && !f.discovery) {
        root.fail("upstreams", "must list at least one upstream (an empty list is only valid "
                               "when a discovery section supplies them)");
    }
    seen_names seen;
    std::string base = root.pointer_of("upstreams");
    for (std::size_t i = 0; i < arr->size(); ++i) {
        object_view o((*arr)[i], child_pointer(base, i), root.errors(),
                      {"id", "url", "urls", "namespace", "protocol", "owner", "labels", "auth",
                       "timeouts", "circuitBreaker", "rateLimit", "budget", "healthCheck",
                       "cacheTtlMs", "pinDefinitions", "toolLimits"});
        if (o.ok()) {
            out.push_back(parse_upstream(o, f, seen));
        }
    }
}

} // namespace gate::config::detail
