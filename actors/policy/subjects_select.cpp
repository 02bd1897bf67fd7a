#include "actors/policy/subjects_select.hpp"

#include <algorithm>

namespace gate {

namespace {

namespace json = boost::json;

template <class List, class Pred> bool any_or_none(const List& l, Pred pred) {
    return l.empty() || std::any_of(l.begin(), l.end(), pred);
}

// RFC 8693's `scope` (space-separated) or a `scp` claim (a list, or a string).
bool holds_scope(const principal& p, std::string_view want) {
    auto in_text = [&](std::string_view text) {
        while (!text.empty()) {
            auto sp = text.find(' ');
            if (text.substr(0, sp) == want)
                return true;
            if (sp == std::string_view::npos)
                return false;
            text.remove_prefix(sp + 1);
        }
        return false;
    };
    for (const char* claim : {"scope", "scp"}) {
        const auto* v = p.claims.if_contains(claim);
        if (!v)
            continue;
        if (v->is_string() && in_text(v->get_string()))
            return true;
        if (const auto* list = v->if_array())
            for (const auto& s : *list)
                if (s.is_string() && s.get_string() == want)
                    return true;
    }
    return false;
}

} // namespace

bool scalar_equals(const json::value& have, const config::claim_value& want) {
    if (const auto* s = std::get_if<std::string>(&want))
        return have.is_string() && have.get_string() == *s;
    if (const auto* b = std::get_if<bool>(&want))
        return have.is_bool() && have.get_bool() == *b;
    double d = std::get<double>(want);
    if (have.is_int64())
        return static_cast<double>(have.get_int64()) == d;
    if (have.is_uint64())
        return static_cast<double>(have.get_uint64()) == d;
    return have.is_double() && have.get_double() == d;
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
    for (const auto& scope : s.scopes)
        if (!holds_scope(p, scope))
            return selection::lacks_scopes;
    return selection::yes;
}

} // namespace gate
