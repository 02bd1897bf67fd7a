#include "config/checks.hpp"
#include "config/parse_sections.hpp"

#include <algorithm>
#include <map>

namespace gate::config::detail {

namespace {

// Which methods an entry's conditions can be decided for: arguments are read from tools/call
// and prompts/get, annotations are a tool's.
void check_condition_methods(const object_view& o, const grant& g) {
    auto lists_only = [&](std::initializer_list<std::string_view> ok) {
        return std::all_of(g.methods.begin(), g.methods.end(), [&](const std::string& m) {
            return std::find(ok.begin(), ok.end(), m) != ok.end();
        });
    };
    if (!g.annotations.empty() && !lists_only({"tools/call"}))
        o.fail("annotations", "apply to tools/call only; list no other method in this entry");
    else if (!g.arguments.empty() && !lists_only({"tools/call", "prompts/get"}))
        o.fail("arguments", "are read from tools/call and prompts/get only; list no other "
                            "method in this entry");
}

std::optional<grant> parse_grant(const object_view& o, const facts& f, bool deny) {
    if (!o.ok()) {
        return std::nullopt;
    }
    grant g;
    o.require("server", deny ? "the id of the upstream this entry denies on, or \"*\" for every "
                               "upstream"
                             : "the id of the upstream this grant applies to");
    if (auto server = o.string("server")) {
        if (!(deny && *server == "*"))
            check_upstream_ref(f, o.errors(), o.pointer_of("server"), *server);
        g.server = *server;
    }
    g.methods = o.strings("methods").value_or(std::vector<std::string>{});
    g.names = o.strings("names").value_or(std::vector<std::string>{});
    g.arguments = parse_argument_conditions(o);
    g.annotations = parse_annotation_conditions(o);
    check_condition_methods(o, g);
    return g;
}

void parse_entries(const object_view& o, std::string_view key, const facts& f,
                   std::vector<grant>& out) {
    const auto* arr = o.array(key);
    if (!arr)
        return;
    bool deny = key == "deny";
    if (arr->empty())
        o.fail(key, deny ? "must list at least one entry, or be omitted"
                         : "must list at least one grant; a rule that allows nothing has no "
                           "effect under a deny-by-default policy");
    std::string base = o.pointer_of(key);
    for (std::size_t i = 0; i < arr->size(); ++i) {
        object_view g((*arr)[i], child_pointer(base, i), o.errors(),
                      {"server", "methods", "names", "arguments", "annotations"});
        if (auto parsed = parse_grant(g, f, deny))
            out.push_back(std::move(*parsed));
    }
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
    r.subjects = parse_subjects(o, "subjects", false, true);
    if (!o.has("allow") && !o.has("deny"))
        o.require("allow", "the grants ({server, methods?, names?, arguments?, annotations?}) "
                           "this rule gives, or deny: the entries it refuses");
    parse_entries(o, "allow", f, r.allow);
    parse_entries(o, "deny", f, r.deny);
    return r;
}

} // namespace

void parse_policy(const object_view& root, const facts& f, std::optional<policy>& out) {
    const auto* v = root.find("policy");
    if (v == nullptr) {
        return;
    }
    object_view o(*v, root.pointer_of("policy"), root.errors(),
                  {"defaultDecision", "rules", "decisionHook"});
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
                          {"id", "subjects", "allow", "deny"});
            if (auto parsed = parse_rule(r, f, seen_ids)) {
                p.rules.push_back(std::move(*parsed));
            }
        }
    }
    parse_decision_hook(o, p.decision_hook);
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
