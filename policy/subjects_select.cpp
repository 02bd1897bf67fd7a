#include "policy/subjects_select.hpp"

#include <algorithm>
#include <cmath>

namespace gate::policy {

namespace {

namespace json = boost::json;

template <class List, class Pred> bool any_or_none(const List& l, Pred pred) {
    return l.empty() || std::any_of(l.begin(), l.end(), pred);
}

} // namespace

std::vector<std::string> held_scopes(const principal& p) {
    std::vector<std::string> out;
    auto add = [&](std::string_view s) {
        if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end())
            out.emplace_back(s);
    };
    for (const char* claim : {"scope", "scp"}) {
        const auto* v = p.claims.if_contains(claim);
        if (v && v->is_string()) {
            std::string_view text = v->get_string();
            for (auto sp = text.find(' ');; sp = text.find(' ')) {
                add(text.substr(0, sp));
                if (sp == std::string_view::npos)
                    break;
                text.remove_prefix(sp + 1);
            }
        } else if (const auto* list = v ? v->if_array() : nullptr) {
            for (const auto& s : *list)
                if (s.is_string())
                    add(s.get_string());
        }
    }
    return out;
}

std::optional<long double> json_number(const json::value& v) {
    if (v.is_int64())
        return static_cast<long double>(v.get_int64());
    if (v.is_uint64())
        return static_cast<long double>(v.get_uint64());
    if (v.is_double() && std::isfinite(v.get_double()))
        return static_cast<long double>(v.get_double());
    return std::nullopt;
}

bool same_kind(const json::value& have, const config::claim_value& want) {
    if (std::holds_alternative<std::string>(want))
        return have.is_string();
    if (std::holds_alternative<bool>(want))
        return have.is_bool();
    return json_number(have).has_value();
}

bool scalar_equals(const json::value& have, const config::claim_value& want) {
    if (const auto* s = std::get_if<std::string>(&want))
        return have.is_string() && have.get_string() == *s;
    if (const auto* b = std::get_if<bool>(&want))
        return have.is_bool() && have.get_bool() == *b;
    auto n = json_number(have);
    return n && *n == static_cast<long double>(std::get<double>(want));
}

selection select_principal(const config::subjects& s, const principal& p) {
    if (!any_or_none(s.subs, [&](const std::string& x) { return x == p.subject; }))
        return selection::no;
    if (!any_or_none(s.issuers, [&](const std::string& x) { return x == p.issuer; }))
        return selection::no;
    if (!any_or_none(s.groups, [&](const std::string& g) {
            return std::find(p.groups.begin(), p.groups.end(), g) != p.groups.end();
        }))
        return selection::no;
    for (const auto& [name, want] : s.claims) {
        const auto* have = p.claims.if_contains(name);
        if (!have || !scalar_equals(*have, want))
            return selection::no;
    }
    if (!s.scopes.empty()) {
        auto held = held_scopes(p);
        for (const auto& scope : s.scopes)
            if (std::find(held.begin(), held.end(), scope) == held.end())
                return selection::lacks_scopes;
    }
    return selection::yes;
}

} // namespace gate::policy
