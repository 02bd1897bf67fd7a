#include "policy/policy_engine.hpp"

#include "policy/subjects_select.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>

namespace gate::policy {

bool glob_match(std::string_view pattern, std::string_view text) {
    // Iterative, with backtracking to the last star only: linear in practice, no recursion.
    std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (p < pattern.size() && pattern[p] == text[t]) {
            ++p;
            ++t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

void append_key_part(std::string& key, std::string_view part) {
    key += std::to_string(part.size());
    key += ':';
    key += part;
}

policy_engine::entry policy_engine::compile(const config::grant& g) {
    entry e{g.server, g.methods, g.names, {}, {}};
    for (const auto& c : g.arguments)
        e.arguments.emplace_back(c);
    for (const auto& [name, value] : g.annotations)
        if (auto h = protocol::tool_hints::named(name))
            e.annotations.emplace_back(*h, value);
    return e;
}

policy_engine::policy_engine(const config::policy& policy)
    : default_allow_(policy.default_decision == "allow") {
    auto reads_claim = [&](const std::string& claim) {
        if (std::find(claim_names_.begin(), claim_names_.end(), claim) == claim_names_.end())
            claim_names_.push_back(claim);
    };
    for (const auto& r : policy.rules) {
        auto& compiled = rules_.emplace_back(rule{r.id, r.subjects, {}, {}});
        for (const auto& g : r.allow)
            compiled.allow.push_back(compile(g));
        for (const auto& g : r.deny)
            compiled.deny.push_back(compile(g));
        has_deny_ = has_deny_ || !r.deny.empty();
        for (const auto* list : {&r.allow, &r.deny})
            for (const auto& g : *list) {
                reads_arguments_ = reads_arguments_ || !g.arguments.empty();
                reads_annotations_ = reads_annotations_ || !g.annotations.empty();
            }
        if (!r.subjects)
            continue;
        reads_subs_ = reads_subs_ || !r.subjects->subs.empty();
        reads_issuers_ = reads_issuers_ || !r.subjects->issuers.empty();
        reads_groups_ = reads_groups_ || !r.subjects->groups.empty();
        for (const auto& [claim, value] : r.subjects->claims)
            reads_claim(claim);
        if (!r.subjects->scopes.empty()) {
            reads_claim("scope");
            reads_claim("scp");
        }
    }
}

bool policy_engine::reads_annotations_of(std::string_view server) const {
    if (!reads_annotations_)
        return false;
    for (const auto& r : rules_)
        for (const auto* list : {&r.allow, &r.deny})
            for (const auto& e : *list)
                if (!e.annotations.empty() && (e.server == server || e.server == "*"))
                    return true;
    return false;
}

void policy_engine::append_principal_key(std::string& key, const principal* caller) const {
    if (!caller) {
        key += 'a'; // no rule with subjects selects an anonymous caller
        return;
    }
    key += 'p';
    if (reads_subs_)
        append_key_part(key, caller->subject);
    if (reads_issuers_)
        append_key_part(key, caller->issuer);
    if (reads_groups_) {
        append_key_part(key, std::to_string(caller->groups.size()));
        for (const auto& g : caller->groups)
            append_key_part(key, g);
    }
    for (const auto& claim : claim_names_) {
        const auto* v = caller->claims.if_contains(claim);
        append_key_part(key, v ? boost::json::serialize(*v) : std::string());
        key += v ? '+' : '-';
    }
}

bool policy_engine::covers(const entry& e, const invocation& what, bool deny) {
    auto method_ok = [&](const std::string& m) {
        return std::find(what.methods.begin(), what.methods.end(), m) != what.methods.end();
    };
    if (!e.methods.empty() && std::none_of(e.methods.begin(), e.methods.end(), method_ok))
        return false;
    if (!e.names.empty() && std::none_of(e.names.begin(), e.names.end(), [&](const auto& n) {
            return glob_match(n, what.name) || glob_match(n, what.client_name) ||
                   (!what.other_name.empty() && glob_match(n, what.other_name));
        }))
        return false;
    if (!e.annotations.empty()) {
        // A tool's: nothing else has annotations to test.
        if (!what.hints)
            return false;
        for (const auto& [hint, value] : e.annotations)
            if (what.hints->has(hint) != value)
                return false;
    }
    if (e.arguments.empty())
        return true;
    // Arguments are a call's (tools/call, prompts/get) and known only when it is made: a list
    // shows what some call may be allowed, and hides only what every call is refused.
    if (!method_ok("tools/call") && !method_ok("prompts/get"))
        return false;
    if (what.listing)
        return !deny;
    return std::all_of(e.arguments.begin(), e.arguments.end(),
                       [&](const argument_match& c) { return c.holds(what.arguments, deny); });
}

namespace {
thread_local std::uint64_t walks = 0;
} // namespace

std::uint64_t policy_engine::walks_on_this_thread() {
    return walks;
}

template <class Refuses, class Grants>
policy_decision policy_engine::first_match(const principal* caller, std::string_view server,
                                           Refuses&& refuses, Grants&& grants, bool step_up) const {
    ++walks;
    auto selects = [&](const rule& r) {
        if (!r.subjects)
            return selection::yes;
        return caller ? select_principal(*r.subjects, *caller) : selection::no;
    };
    auto for_server = [&](const entry& e) { return e.server == server || e.server == "*"; };
    if (has_deny_)
        for (const auto& r : rules_) {
            if (r.deny.empty() || selects(r) != selection::yes)
                continue;
            for (std::size_t i = 0; i < r.deny.size(); ++i)
                if (for_server(r.deny[i]) && refuses(r.deny[i]))
                    return {false, r.id, decided_by::deny_entry, i, {}, {}};
        }
    const rule* stepping_up = nullptr;
    for (const auto& r : rules_) {
        auto selected = selects(r);
        if (selected == selection::no || (selected == selection::lacks_scopes && stepping_up))
            continue;
        for (std::size_t i = 0; i < r.allow.size(); ++i) {
            if (!for_server(r.allow[i]) || !grants(r.allow[i]))
                continue;
            if (selected == selection::yes)
                return {true, r.id, decided_by::allow_entry, i, {}, {}};
            stepping_up = &r;
            break;
        }
    }
    policy_decision d{default_allow_, std::nullopt, decided_by::default_decision, 0, {}, {}};
    if (!d.allowed && step_up && stepping_up) {
        d.needed_scopes = stepping_up->subjects->scopes;
        d.step_up_rule = stepping_up->id;
    }
    return d;
}

policy_decision policy_engine::decide(const principal* caller, const invocation& what) const {
    return first_match(
        caller, what.server, [&](const entry& e) { return covers(e, what, true); },
        [&](const entry& e) { return covers(e, what, false); }, true);
}

policy_decision policy_engine::decide_server_request(const principal* caller,
                                                     std::string_view server,
                                                     std::string_view method) const {
    // What an entry with conditions covers is a call's or a tool's; a server's request is
    // neither.
    auto covers_request = [&](const entry& e) {
        bool everything = e.methods.empty() && e.names.empty();
        return !e.conditional() && (everything || std::find(e.methods.begin(), e.methods.end(),
                                                            method) != e.methods.end());
    };
    return first_match(caller, server, covers_request, covers_request, false);
}

policy_decision policy_engine::decide_task(const principal* caller, std::string_view server,
                                           std::string_view method) const {
    auto lists = [&](const entry& e, std::string_view m) {
        return std::find(e.methods.begin(), e.methods.end(), m) != e.methods.end();
    };
    // A deny names the task method itself, or the whole server.
    auto refuses = [&](const entry& e) {
        return !e.conditional() && ((e.methods.empty() && e.names.empty()) || lists(e, method));
    };
    // The call that made the task met its entry's conditions when it was made.
    auto grants = [&](const entry& e) {
        return e.methods.empty() || lists(e, method) || lists(e, "tools/call");
    };
    return first_match(caller, server, refuses, grants, false);
}

} // namespace gate::policy
