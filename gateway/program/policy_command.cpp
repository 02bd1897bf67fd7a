// `gate policy test --config gate.json cases.json`: the policy of a configuration checked
// against expected decisions, without starting a gateway (docs/configuration.md, "Testing a
// policy"). Each case is a principal (the token's verified claims), an invocation and the
// decision (and rule) it expects; the table says which held. Exit status: 0 when every case
// holds, 1 when one does not, 2 when the command, the configuration or the cases are wrong.
#include "gateway/program/policy_command.hpp"

#include "actors/federation/snapshot.hpp"
#include "config/load.hpp"
#include "config/read_json.hpp"
#include "policy/policy_explain.hpp"
#include "protocol/param_headers.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace gate::gateway::program {

namespace {

namespace json = boost::json;
using config::detail::object_view;

struct policy_case {
    std::string label;
    policy::principal who;
    bool anonymous = true;
    policy::explain_request what;
    std::string expect;
    std::optional<std::optional<std::string>> rule; // absent: not checked; null: the default
};

// The principal a verified token with these claims makes (groups from its issuer's
// groupsClaim, as the authenticator reads them).
policy::principal principal_of(const json::object& claims, const config::document& doc) {
    policy::principal p;
    p.claims = claims;
    auto text = [&](std::string_view k) {
        const auto* v = claims.if_contains(k);
        return v && v->is_string() ? std::string(v->get_string()) : std::string();
    };
    p.subject = text("sub");
    p.issuer = text("iss");
    for (const auto& iss : doc.auth.issuers) {
        if (iss.issuer != p.issuer || !iss.groups_claim)
            continue;
        if (const auto* g = claims.if_contains(*iss.groups_claim); g && g->is_array())
            for (const auto& v : g->get_array())
                if (v.is_string())
                    p.groups.emplace_back(v.get_string());
    }
    return p;
}

std::optional<policy_case> read_case(const object_view& c, const config::document& doc,
                                     std::size_t index) {
    if (!c.ok())
        return std::nullopt;
    policy_case out;
    out.label = c.string("label").value_or("#" + std::to_string(index));
    if (const auto* p = c.find("principal"); p && !p->is_null()) {
        if (!p->is_object()) {
            c.fail("principal", "must be the token's claims (an object), or null for anonymous");
        } else {
            out.who = principal_of(p->get_object(), doc);
            out.anonymous = false;
        }
    }
    c.require("method", "the MCP method, for example tools/call");
    out.what.method = c.string("method").value_or("");
    out.what.name = c.string("name").value_or("");
    out.what.uri = c.string("uri").value_or("");
    out.what.server = c.string("server").value_or("");
    if (const auto* a = c.find("arguments")) {
        if (a->is_object())
            out.what.arguments = a->get_object();
        else
            c.fail("arguments", "must be an object, the call's arguments");
    }
    if (const auto* a = c.find("annotations")) {
        if (a->is_object())
            out.what.hints = protocol::tool_hints::of(json::object{{"annotations", *a}});
        else
            c.fail("annotations", "must be an object, the tool's annotations");
    }
    c.require("expect", "\"allow\" or \"deny\"");
    out.expect = c.one_of("expect", {"allow", "deny"}).value_or("");
    if (const auto* r = c.find("rule")) {
        if (r->is_null())
            out.rule = std::optional<std::string>();
        else
            out.rule = c.string("rule");
    }
    return out;
}

std::optional<std::string> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

int bad_cases(const std::string& path, std::vector<config::error> errors) {
    for (const auto& e : errors)
        std::fprintf(stderr, "gate: %s at %s: %s\n", path.c_str(),
                     e.pointer.empty() ? "/" : e.pointer.c_str(), e.reason.c_str());
    return 2;
}

std::vector<policy_case> read_cases(const json::value& root, const config::document& doc,
                                    config::detail::sink& errors) {
    std::vector<policy_case> cases;
    object_view top(root, "", errors, {"cases"});
    const auto* list = top.ok() ? top.array("cases") : nullptr;
    if (top.ok() && !list)
        top.require("cases", "the list of cases");
    for (std::size_t i = 0; list && i < list->size(); ++i) {
        object_view c((*list)[i], "/cases/" + std::to_string(i), errors,
                      {"label", "principal", "method", "name", "uri", "server", "arguments",
                       "annotations", "expect", "rule"});
        if (auto parsed = read_case(c, doc, i))
            cases.push_back(std::move(*parsed));
    }
    return cases;
}

std::string shown(const std::string& decision, const std::optional<std::string>& rule) {
    return decision == "error" ? decision : decision + (rule ? " " + *rule : " (default)");
}

// One line per case; whether every case held.
bool print_table(const std::vector<policy_case>& cases, const policy::policy_world& world) {
    std::size_t failed = 0;
    std::printf("%-6s %-40s %-32s %-32s %s\n", "RESULT", "CASE", "EXPECTED", "GOT", "WHY");
    for (const auto& c : cases) {
        auto got = explain(world, c.anonymous ? nullptr : &c.who, c.what);
        std::string decision, why;
        std::optional<std::string> rule;
        if (auto* e = std::get_if<policy::explained>(&got)) {
            decision = e->allowed ? "allow" : "deny";
            rule = e->decision.rule_id;
            why = e->reason;
        } else {
            decision = "error";
            why = std::get<std::string>(got);
        }
        bool held = decision == c.expect && (!c.rule || *c.rule == rule);
        failed += held ? 0 : 1;
        std::string expected = c.rule ? shown(c.expect, *c.rule) : c.expect;
        // Labels, names and rule ids are the files' own: printable, so a log shows no escapes.
        std::printf("%-6s %-40s %-32s %-32s %s\n", held ? "ok" : "FAIL",
                    protocol::printable(c.label, 40).c_str(),
                    protocol::printable(expected, 80).c_str(),
                    protocol::printable(shown(decision, rule), 80).c_str(),
                    protocol::printable(why, 400).c_str());
    }
    std::printf("%zu case%s, %zu failed\n", cases.size(), cases.size() == 1 ? "" : "s", failed);
    return failed == 0;
}

} // namespace

int run_policy_command(const std::vector<std::string>& args) {
    std::optional<std::string> config_path, cases_path;
    bool test = !args.empty() && args[0] == "test";
    for (std::size_t i = 1; test && i < args.size(); ++i) {
        if (args[i] == "--config" && i + 1 < args.size())
            config_path = args[++i];
        else if (!cases_path && !args[i].starts_with("--"))
            cases_path = args[i];
        else
            test = false;
    }
    if (!test || !config_path || !cases_path) {
        std::fprintf(stderr, "usage: gate policy test --config <gate.json> <cases.json>\n");
        return 2;
    }
    auto loaded = config::load(*config_path);
    if (!loaded.errors.empty())
        return bad_cases(*config_path, std::move(loaded.errors));
    auto text = read_file(*cases_path);
    if (!text)
        return bad_cases(*cases_path, {{"", "cannot be read"}});
    config::detail::sink errors;
    auto root = config::detail::read_json(*text, errors);
    std::vector<policy_case> cases;
    if (root)
        cases = read_cases(*root, *loaded.doc, errors);
    if (!errors.empty())
        return bad_cases(*cases_path, errors.take());
    auto snap = actors::make_snapshot(loaded.doc, 0);
    policy::policy_world world{*loaded.doc, snap->policy.get(), snap->codec, snap->tenants.get()};
    return print_table(cases, world) ? 0 : 1;
}

} // namespace gate::gateway::program
