#include "protocol/jose/id_jag.hpp"

#include <boost/beast/core/string.hpp>

namespace gate::protocol::jose {

namespace json = boost::json;

namespace {

std::string_view text(const json::object& o, std::string_view member) {
    const auto* v = o.if_contains(member);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

bool audience_ok(const json::value* aud, const std::vector<std::string>& allowed) {
    auto one = [&](const json::value& a) {
        if (!a.is_string())
            return false;
        for (const auto& x : allowed)
            if (a.get_string() == x)
                return true;
        return false;
    };
    if (!aud)
        return false;
    if (aud->is_array()) {
        for (const auto& a : aud->get_array())
            if (one(a))
                return true;
        return false;
    }
    return one(*aud);
}

} // namespace

std::variant<verified_assertion, std::string>
check_id_jag(const compact_jws& jws, const id_jag_rules& rules, std::int64_t now_unix) {
    const auto& p = jws.payload;
    if (!boost::beast::iequals(text(jws.header, "typ"), "oauth-id-jag+jwt"))
        return std::string("the assertion is not an ID-JAG (typ oauth-id-jag+jwt)");
    if (text(p, "iss") != rules.idp_issuer)
        return "the assertion's issuer is not " + rules.idp_issuer;
    if (!audience_ok(p.if_contains("aud"), rules.aud))
        return "the assertion is not for this gateway (aud)";
    if (p.contains("resource") && text(p, "resource") != rules.resource)
        return "the assertion is for another resource than " + rules.resource;
    auto sub = text(p, "sub");
    if (sub.empty())
        return std::string("the assertion has no subject (sub)");
    auto jti = text(p, "jti");
    if (jti.empty())
        return std::string("the assertion has no jti: each must be single-use");
    if (auto problem = lifetime_problem(p, "assertion", now_unix))
        return std::move(*problem);
    verified_assertion out;
    out.subject = sub;
    out.jti = jti;
    out.expires = static_cast<std::int64_t>(*numeric_date(p, "exp"));
    out.client_id = text(p, "client_id");
    std::string_view scope = text(p, "scope");
    while (!scope.empty()) {
        auto space = scope.find(' ');
        if (auto word = scope.substr(0, space); !word.empty())
            out.scopes.emplace_back(word);
        scope = space == std::string_view::npos ? std::string_view() : scope.substr(space + 1);
    }
    out.claims = p;
    return out;
}

} // namespace gate::protocol::jose
