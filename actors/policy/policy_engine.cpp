#include "actors/policy/policy_engine.hpp"

#include "actors/policy/subjects_select.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>

namespace gate {

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

policy_engine::policy_engine(const config::policy& policy)
    : default_allow_(policy.default_decision == "allow") {
    for (const auto& r : policy.rules) {
        rules_.push_back({r.id, r.subjects, r.allow});
        if (!r.subjects)
            continue;
        reads_subs_ = reads_subs_ || !r.subjects->subs.empty();
        reads_issuers_ = reads_issuers_ || !r.subjects->issuers.empty();
        reads_groups_ = reads_groups_ || !r.subjects->groups.empty();
        for (const auto& [claim, value] : r.subjects->claims)
            if (std::find(claim_names_.begin(), claim_names_.end(), claim) == claim_names_.end())
                claim_names_.push_back(claim);
    }
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

template <class Grants>
policy_decision policy_engine::first_grant(const principal* caller, std::string_view server,
                                           Grants&& grants) const {
    for (const auto& r : rules_) {
        if (r.subjects && (!caller || !subjects_select(*r.subjects, *caller)))
            continue;
        for (const auto& g : r.allow)
            if (g.server == server && grants(g))
                return {true, r.id};
    }
    return {default_allow_, std::nullopt};
}

policy_decision policy_engine::decide(const principal* caller, std::string_view server,
                                      std::span<const std::string_view> methods,
                                      std::string_view name, std::string_view client_name) const {
    return first_grant(caller, server, [&](const config::grant& g) {
        bool method_ok =
            g.methods.empty() ||
            std::any_of(methods.begin(), methods.end(), [&](std::string_view m) {
                return std::find(g.methods.begin(), g.methods.end(), m) != g.methods.end();
            });
        return method_ok && (g.names.empty() ||
                             std::any_of(g.names.begin(), g.names.end(), [&](const std::string& n) {
                                 return glob_match(n, name) || glob_match(n, client_name);
                             }));
    });
}

policy_decision policy_engine::decide_server_request(const principal* caller,
                                                     std::string_view server,
                                                     std::string_view method) const {
    return first_grant(caller, server, [&](const config::grant& g) {
        bool everything = g.methods.empty() && g.names.empty();
        return everything ||
               std::find(g.methods.begin(), g.methods.end(), method) != g.methods.end();
    });
}

policy_decision policy_engine::decide_task(const principal* caller, std::string_view server,
                                           std::string_view method) const {
    return first_grant(caller, server, [&](const config::grant& g) {
        auto lists = [&](std::string_view m) {
            return std::find(g.methods.begin(), g.methods.end(), m) != g.methods.end();
        };
        return g.methods.empty() || lists(method) || lists("tools/call");
    });
}

} // namespace gate
