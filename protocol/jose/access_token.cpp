#include "protocol/jose/access_token.hpp"

#include "protocol/jose/lifetime.hpp"

#include <boost/beast/core/string.hpp>

namespace gate::protocol::jose {

namespace json = boost::json;

namespace {

bool audience_matches(const json::value& aud, const std::string& resource) {
    if (aud.is_string())
        return aud.get_string() == resource;
    if (aud.is_array())
        for (const auto& a : aud.get_array())
            if (a.is_string() && a.get_string() == resource)
                return true;
    return false;
}

// RFC 7519 section 5.1 and RFC 9068 section 2.1: a JWT or a JWT access token; anything else
// (an ID-JAG, a logout token) is another kind of assertion and is not an access token.
bool access_token_type(std::string_view typ) {
    using boost::beast::iequals;
    return iequals(typ, "JWT") || iequals(typ, "application/jwt") || iequals(typ, "at+jwt") ||
           iequals(typ, "application/at+jwt");
}

std::vector<std::string> groups_of(const json::value& v) {
    std::vector<std::string> out;
    if (v.is_array()) {
        for (const auto& g : v.get_array())
            if (g.is_string() && !g.get_string().empty())
                out.emplace_back(g.get_string());
    } else if (v.is_string()) {
        std::string_view s = v.get_string();
        while (!s.empty()) {
            auto space = s.find(' ');
            auto word = s.substr(0, space);
            if (!word.empty())
                out.emplace_back(word);
            s = space == std::string_view::npos ? std::string_view() : s.substr(space + 1);
        }
    }
    return out;
}

} // namespace

std::optional<std::string> claimed_issuer(const compact_jws& jws) {
    const auto* iss = jws.payload.if_contains("iss");
    if (!iss || !iss->is_string())
        return std::nullopt;
    return std::string(iss->get_string());
}

std::variant<verified_token, std::string>
check_claims(const compact_jws& jws, const token_rules& rules, std::int64_t now_unix) {
    const auto& p = jws.payload;
    if (claimed_issuer(jws) != rules.issuer)
        return std::string("the token's issuer is not " + rules.issuer);
    if (const auto* typ = jws.header.if_contains("typ")) {
        if (!typ->is_string() || !access_token_type(typ->get_string()))
            return std::string("the token's type is not an access token (typ JWT or at+jwt)");
    }
    const auto* aud = p.if_contains("aud");
    if (!aud || !audience_matches(*aud, rules.audience))
        return "the token's audience is not " + rules.audience;
    const auto* sub = p.if_contains("sub");
    if (!sub || !sub->is_string() || sub->get_string().empty())
        return std::string("the token has no subject (sub)");
    if (auto problem = lifetime_problem(p, "token", now_unix))
        return std::move(*problem);
    verified_token out;
    out.subject = sub->get_string();
    out.issuer = rules.issuer;
    if (!rules.groups_claim.empty())
        if (const auto* g = p.if_contains(rules.groups_claim))
            out.groups = groups_of(*g);
    out.claims = p;
    return out;
}

} // namespace gate::protocol::jose
