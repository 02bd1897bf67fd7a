#include "protocol/oauth/token_answer.hpp"

#include <boost/json/parse.hpp>
#include <cmath>

namespace gate::protocol::oauth {

namespace json = boost::json;

bool header_safe(std::string_view s) {
    for (unsigned char c : s)
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return false;
    return true;
}

namespace {

bool printable_code(std::string_view s) {
    if (s.empty() || s.size() > 64)
        return false;
    for (unsigned char c : s)
        if (c < 0x21 || c > 0x7e || c == '"' || c == '\\')
            return false;
    return true;
}

std::optional<std::chrono::seconds> seconds_of(const json::value& e) {
    double s = e.is_int64()    ? static_cast<double>(e.get_int64())
               : e.is_uint64() ? static_cast<double>(e.get_uint64())
               : e.is_double() ? e.get_double()
                               : -1;
    if (!(s >= 0) || s > 10.0 * 365 * 24 * 3600)
        return std::nullopt;
    return std::chrono::seconds(static_cast<std::int64_t>(std::floor(s)));
}

} // namespace

std::variant<issued_token, token_refusal> read_token_answer(unsigned status,
                                                            std::string_view body) {
    boost::system::error_code ec;
    auto doc = json::parse(body, ec);
    const auto* o = !ec && doc.is_object() ? &doc.get_object() : nullptr;
    if (status != 200) {
        token_refusal r{"the token endpoint answered HTTP " + std::to_string(status), {}};
        if (const auto* err = o ? o->if_contains("error") : nullptr;
            err && err->is_string() && printable_code(err->get_string())) {
            r.error = std::string(err->get_string());
            r.why += " (" + r.error + ")";
        }
        return r;
    }
    const auto* token = o ? o->if_contains("access_token") : nullptr;
    if (!token || !token->is_string() || token->get_string().empty() ||
        !header_safe(token->get_string()))
        return token_refusal{"the token endpoint's answer has no usable access_token", {}};
    const auto* type = o->if_contains("token_type");
    if (type &&
        !(type->is_string() && (type->get_string() == "Bearer" || type->get_string() == "bearer")))
        return token_refusal{"the token endpoint issued a token that is not a Bearer token", {}};
    issued_token t;
    t.access_token = std::string(token->get_string());
    if (const auto* e = o->if_contains("expires_in"))
        t.expires_in = seconds_of(*e);
    if (const auto* r = o->if_contains("refresh_token");
        r && r->is_string() && header_safe(r->get_string()))
        t.refresh_token = std::string(r->get_string());
    if (const auto* s = o->if_contains("scope"); s && s->is_string())
        t.scope = std::string(s->get_string());
    return t;
}

} // namespace gate::protocol::oauth
