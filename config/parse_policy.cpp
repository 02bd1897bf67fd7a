#include "config/checks.hpp"
#include "config/parse_sections.hpp"

#include <map>

namespace gate::config::detail {

namespace {

std::optional<grant> parse_grant(const object_view& o, const facts& f) {
    if (!o.ok()) {
        return std::nullopt;
    }
    grant g;
    o.require("server", "the id of the upstream this grant applies to");
    if (auto server = o.string("server")) {
        check_upstream_ref(f, o.errors(), o.pointer_of("server"), *server);
        g.server = *server;
    }
    g.methods = o.strings("methods").value_or(std::vector<std::string>{});
    g.names = o.strings("names").value_or(std::vector<std::string>{});
    return g;
}

std::optional<rule> parse_rule(const object_view& o, const facts& f,
                               std::map<std::string, std::string>& seen_ids) {
    if (!o.ok()) {
        return std::nullopt;
    }
    rule r;
    o.require("id", "the rule id reported in audit events as ruleId");
    if (auto id = o.string("id")) {
        if (auto [it, fresh] = seen_ids.emplace(*id, o.pointer_of("id")); !fresh) {
            o.fail("id", "duplicate rule id " + quoted(*id) + " (already used by " + it->second +
                             "); audit events name rules by id, so ids must be unique");
        }
        r.id = *id;
    }
    r.subjects = parse_subjects(o, "subjects", false);
    o.require("allow", "the list of grants ({server, methods?, names?}) this rule gives");
    if (const auto* arr = o.array("allow")) {
        if (arr->empty()) {
            o.fail("allow", "must list at least one grant; a rule that allows nothing has no "
                            "effect under a deny-by-default policy");
        }
        std::string base = o.pointer_of("allow");
        for (std::size_t i = 0; i < arr->size(); ++i) {
            object_view g((*arr)[i], child_pointer(base, i), o.errors(),
                          {"server", "methods", "names"});
            if (auto parsed = parse_grant(g, f)) {
                r.allow.push_back(std::move(*parsed));
            }
        }
    }
    return r;
}

} // namespace

void parse_policy(const object_view& root, const facts& f, std::optional<policy>& out) {
    const auto* v = root.find("policy");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, root.pointer_of("policy"), root.errors(), {"defaultDecision", "rules"});
    if (!o.ok()) {
        return;
    }
    policy p;
    p.default_decision = o.one_of("defaultDecision", {"allow", "deny"}).value_or("deny");
    if (const auto* arr = o.array("rules")) {
        std::map<std::string, std::string> seen_ids;
        std::string base = o.pointer_of("rules");
        for (std::size_t i = 0; i < arr->size(); ++i) {
            object_view r((*arr)[i], child_pointer(base, i), o.errors(),
                          {"id", "subjects", "allow"});
            if (auto parsed = parse_rule(r, f, seen_ids)) {
                p.rules.push_back(std::move(*parsed));
            }
        }
    }
    out = std::move(p);
}

void parse_audit(const object_view& root, std::optional<audit>& out) {
    const auto* v = root.find("audit");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, root.pointer_of("audit"), root.errors(), {"sinks"});
    if (!o.ok()) {
        return;
    }
    audit a;
    o.require("sinks", "the list of audit sinks ({type: \"stdout\"} or {type: \"webhook\", "
                       "url, headers?})");
    if (const auto* arr = o.array("sinks")) {
        std::string base = o.pointer_of("sinks");
        for (std::size_t i = 0; i < arr->size(); ++i) {
            object_view s((*arr)[i], child_pointer(base, i), o.errors(),
                          {"type", "url", "headers"});
            if (!s.ok()) {
                continue;
            }
            audit_sink sink;
            s.require("type", "\"stdout\" or \"webhook\"");
            sink.type = s.one_of("type", {"stdout", "webhook"}).value_or("");
            if (sink.type == "stdout") {
                for (auto key : {"url", "headers"}) {
                    if (s.has(key)) {
                        s.fail(key, "is not used by sink type \"stdout\"; only webhook sinks take "
                                    "url and headers");
                    }
                }
            } else if (sink.type == "webhook") {
                s.require("url", "the http(s) URL that receives batched audit events");
                sink.url = read_http_url(s, "url", false).value_or("");
                sink.headers = s.strings_map("headers").value_or(string_map{});
                for (const auto& [name, value] : sink.headers) {
                    std::string ptr = child_pointer(s.pointer_of("headers"), name);
                    if (!is_http_token(name)) {
                        s.errors().add(ptr, quoted(name) + " is not a valid HTTP header name");
                    } else if (value.find_first_of("\r\n") != std::string::npos) {
                        s.errors().add(ptr, "header values must not contain line breaks");
                    }
                }
            }
            a.sinks.push_back(std::move(sink));
        }
    }
    out = std::move(a);
}

} // namespace gate::config::detail
