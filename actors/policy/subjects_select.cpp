#include "actors/policy/subjects_select.hpp"

#include <algorithm>

namespace gate {

namespace {

namespace json = boost::json;

bool claim_equals(const json::value& have, const config::claim_value& want) {
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

template <class List, class Pred> bool any_or_none(const List& l, Pred pred) {
    return l.empty() || std::any_of(l.begin(), l.end(), pred);
}

} // namespace

bool subjects_select(const config::subjects& s, const principal& p) {
    if (!any_or_none(s.subs, [&](const std::string& x) { return x == p.subject; }))
        return false;
    if (!any_or_none(s.issuers, [&](const std::string& x) { return x == p.issuer; }))
        return false;
    if (!any_or_none(s.groups, [&](const std::string& g) {
            return std::find(p.groups.begin(), p.groups.end(), g) != p.groups.end();
        }))
        return false;
    for (const auto& [name, want] : s.claims) {
        const auto* have = p.claims.if_contains(name);
        if (!have || !claim_equals(*have, want))
            return false;
    }
    return true;
}

} // namespace gate
