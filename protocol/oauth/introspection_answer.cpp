#include "protocol/oauth/introspection_answer.hpp"

#include "protocol/jose/lifetime.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>

namespace gate::protocol::oauth {

namespace json = boost::json;

namespace {

introspection_refusal refused(std::string why) {
    return {std::move(why), true};
}

bool names_audience(const json::value* aud, std::string_view resource) {
    if (aud && aud->is_string())
        return aud->get_string() == resource;
    if (const auto* list = aud ? aud->if_array() : nullptr)
        return std::any_of(list->begin(), list->end(), [&](const json::value& v) {
            return v.is_string() && v.get_string() == resource;
        });
    return false;
}

std::optional<std::string> text_of(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_string() || v->get_string().empty())
        return std::nullopt;
    return std::string(v->get_string());
}

} // namespace

std::variant<introspected, introspection_refusal>
read_introspection(unsigned status, std::string_view body, const introspection_rules& rules,
                   std::int64_t now) {
    if (status != 200)
        return introspection_refusal{"the introspection endpoint answered HTTP " +
                                     std::to_string(status)};
    boost::system::error_code ec;
    auto doc = json::parse(body, ec);
    if (ec || !doc.is_object())
        return introspection_refusal{"the introspection endpoint's answer is not a JSON object"};
    auto& o = doc.get_object();
    const auto* active = o.if_contains("active");
    if (!active || !active->is_bool() || !active->get_bool())
        return refused("the token is not active (its issuer's introspection endpoint says so)");
    auto exp = jose::numeric_date(o, "exp");
    if (exp && *exp + static_cast<double>(jose::clock_leeway_seconds) <= static_cast<double>(now))
        return refused("the token has expired");
    if (!names_audience(o.if_contains("aud"), rules.resource))
        return refused("the token is not for this resource: its audience (aud) does not name " +
                       std::string(rules.resource));
    auto iss = text_of(o, "iss");
    if (rules.issuer && iss && *iss != *rules.issuer)
        return refused("the token's issuer " + *iss + " is not " + std::string(*rules.issuer));
    auto subject = text_of(o, "sub");
    if (!subject)
        subject = text_of(o, "client_id"); // a client's own token names the client
    if (!subject)
        return refused("the token names nobody (no sub and no client_id)");
    introspected out;
    out.subject = std::move(*subject);
    out.issuer =
        rules.issuer ? std::string(*rules.issuer) : iss.value_or(std::string(rules.endpoint));
    out.believed_until = now + rules.cache_seconds;
    if (exp)
        out.believed_until = std::min(out.believed_until, static_cast<std::int64_t>(*exp));
    out.claims = std::move(o);
    return out;
}

} // namespace gate::protocol::oauth
