#include "policy/policy_explain.hpp"

#include "protocol/ui_uri.hpp"

#include <algorithm>

namespace gate::policy {

namespace json = boost::json;

namespace {

// Where the invocation goes: the upstream's id and the item's names, or why it cannot be told.
std::variant<explained, std::string> placed(const policy_world& world, const explain_request& r) {
    explained e;
    if (r.method == "completion/complete")
        return std::string(
            "a completion is decided as the prompts/get or resources/read of what it "
            "completes: ask about that");
    bool named = r.method == "tools/call" || r.method == "prompts/get";
    const auto& ups = world.doc.upstreams;
    auto index_of = [&](std::string_view id) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < ups.size(); ++i)
            if (ups[i].id == id)
                return i;
        return std::nullopt;
    };
    if (named && r.server.empty()) {
        if (r.name.empty())
            return std::string("name is required for ") + r.method;
        auto d = world.codec.decode(r.name);
        if (!d || d->upstream >= ups.size())
            return unknown_namespace_text(r.name);
        if (d->maybe_alias && !r.alias_checked)
            return "\"" + r.name +
                   "\" has the shape of a short alias (routing.maxNameLength), which gate "
                   "reverses from the upstream's list only: ask by its own name, with server=" +
                   ups[d->upstream].id;
        e.server = ups[d->upstream].id;
        e.own_name = std::string(d->name);
        e.client_name = r.name;
        return e;
    }
    // A ui:// URI gate rewrote names its upstream, as a call does (protocol/ui_uri.hpp).
    auto rewritten = named ? std::nullopt : protocol::upstream_ui(world.codec, r.uri);
    if (r.server.empty() && rewritten && rewritten->upstream < ups.size()) {
        e.server = ups[rewritten->upstream].id;
        e.own_name = rewritten->uri;
        e.client_name = r.uri;
        return e;
    }
    if (r.server.empty())
        return "server is required for " + r.method + " (a URI's owner is known from lists only)";
    auto i = index_of(r.server);
    if (!i)
        return unknown_upstream_text(r.server);
    e.server = r.server;
    if (named && r.name.empty())
        return std::string("name is required for ") + r.method;
    if (named) {
        e.own_name = r.name;
        e.client_name = world.codec.client_name(*i, r.name);
    } else if (rewritten && rewritten->upstream == *i) {
        e.own_name = rewritten->uri; // the listed spelling, asked with its server
        e.client_name = r.uri;
    } else {
        // The upstream's own URI: judged as the URI gate lists it by, as a read of it is.
        e.own_name = r.uri;
        e.client_name = protocol::client_ui_uri(world.codec, *i, r.uri);
    }
    return e;
}

std::string rule_pointer(const config::document& doc, const policy_decision& d) {
    if (!doc.policy || !d.rule_id || d.by == decided_by::default_decision)
        return {};
    const auto& rules = doc.policy->rules;
    auto it = std::find_if(rules.begin(), rules.end(),
                           [&](const config::rule& r) { return r.id == *d.rule_id; });
    if (it == rules.end())
        return {};
    return "/policy/rules/" + std::to_string(it - rules.begin()) +
           (d.by == decided_by::deny_entry ? "/deny/" : "/allow/") + std::to_string(d.entry);
}

std::string reason_of(const policy_world& world, const explained& e) {
    if (e.hidden_by_tenant)
        return "tenant " + *e.tenant + " does not see upstream " + e.server +
               " (tenants[].upstreams): it is answered as an unknown namespace";
    if (!world.policy)
        return "no policy section: authorization is not enforced";
    const auto& d = e.decision;
    switch (d.by) {
    case decided_by::deny_entry:
        return "rule " + *d.rule_id + " denies it (" + e.entry + ")";
    case decided_by::allow_entry:
        return "rule " + *d.rule_id + " allows it (" + e.entry + ")";
    case decided_by::default_decision:
        break;
    }
    std::string why =
        std::string("no rule allows it: defaultDecision ") + (d.allowed ? "allow" : "deny");
    if (!d.needed_scopes.empty()) {
        why += "; rule " + d.step_up_rule + " would allow it to a token with the scope";
        for (const auto& s : d.needed_scopes)
            why += " " + s;
    }
    return why;
}

} // namespace

std::variant<explained, std::string> explain(const policy_world& world, const principal* caller,
                                             const explain_request& what) {
    auto where = placed(world, what);
    if (auto* why = std::get_if<std::string>(&where))
        return *why;
    auto e = std::get<explained>(std::move(where));
    if (world.tenants && caller) {
        auto t = world.tenants->resolve(*caller);
        if (auto* i = std::get_if<std::size_t>(&t)) {
            e.tenant = world.tenants->tenant(*i).id;
            e.hidden_by_tenant = !world.tenants->sees(*i, e.server);
        }
    }
    if (!e.hidden_by_tenant && world.policy) {
        static constexpr std::string_view subscribing[] = {"resources/subscribe", "resources/read"};
        std::string_view self[] = {what.method};
        invocation inv{e.server,
                       what.method == "resources/subscribe"
                           ? std::span(subscribing)
                           : std::span<const std::string_view>(self),
                       e.own_name, e.client_name};
        if (what.arguments)
            inv.arguments = &*what.arguments;
        inv.listing = what.listing;
        if (what.method == "tools/call")
            inv.hints = what.hints.value_or(protocol::tool_hints{});
        e.decision = world.policy->decide(caller, inv);
        e.entry = rule_pointer(world.doc, e.decision);
    } else {
        e.decision.allowed = !e.hidden_by_tenant;
    }
    e.allowed = e.decision.allowed;
    e.reason = reason_of(world, e);
    return e;
}

std::string unknown_upstream_text(std::string_view server) {
    return "\"" + std::string(server) + "\" is not the id of a configured upstream";
}

std::string unknown_namespace_text(std::string_view name) {
    return "unknown namespace in \"" + std::string(name) + "\": no configured upstream owns it";
}

json::object explanation_json(const explained& e) {
    json::object out{{"decision", e.allowed ? "allow" : "deny"},
                     {"server", e.server},
                     {"name", e.own_name},
                     {"clientName", e.client_name},
                     {"reason", e.reason}};
    if (e.decision.rule_id)
        out["ruleId"] = *e.decision.rule_id;
    if (!e.entry.empty())
        out["entry"] = e.entry;
    if (e.tenant)
        out["tenant"] = *e.tenant;
    if (!e.decision.needed_scopes.empty()) {
        json::array scopes;
        for (const auto& s : e.decision.needed_scopes)
            scopes.emplace_back(s);
        out["requiredScopes"] = std::move(scopes);
        out["stepUpRule"] = e.decision.step_up_rule;
    }
    return out;
}

} // namespace gate::policy
