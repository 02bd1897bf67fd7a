#include "protocol/jose/jws.hpp"

#include "protocol/jose/base64url.hpp"

#include <boost/json/parse.hpp>

namespace gate::protocol::jose {

namespace json = boost::json;

namespace {

std::variant<json::object, std::string> object_part(std::string_view part, std::string_view what) {
    auto bytes = base64url_decode(part);
    if (!bytes)
        return "the " + std::string(what) + " is not base64url";
    boost::system::error_code ec;
    auto v = json::parse(*bytes, ec);
    if (ec || !v.is_object())
        return "the " + std::string(what) + " is not a JSON object";
    return std::move(v.get_object());
}

} // namespace

std::variant<compact_jws, std::string> parse_compact(std::string_view token) {
    if (token.size() > max_token_bytes)
        return "the token is larger than " + std::to_string(max_token_bytes) + " bytes";
    auto first = token.find('.');
    auto second = first == std::string_view::npos ? first : token.find('.', first + 1);
    if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos)
        return std::string("not a compact JWS (three dot-separated parts)");
    compact_jws out;
    auto header = object_part(token.substr(0, first), "token header");
    if (auto* e = std::get_if<std::string>(&header))
        return std::move(*e);
    out.header = std::move(std::get<json::object>(header));
    const auto* alg = out.header.if_contains("alg");
    if (!alg || !alg->is_string())
        return std::string("the token header has no alg");
    auto known = algorithm_named(alg->get_string());
    if (!known)
        return "algorithm " + std::string(alg->get_string()) +
               " is not accepted (RS256/384/512, PS256/384/512, ES256/384 or EdDSA only)";
    out.alg = *known;
    // RFC 7515 section 4.1.11: a recipient that does not understand every listed extension
    // must refuse the token; gate understands none.
    if (out.header.contains("crit"))
        return std::string("the token header lists critical extensions (crit), which gate does "
                           "not implement");
    if (const auto* kid = out.header.if_contains("kid")) {
        if (!kid->is_string())
            return std::string("the token header's kid is not a string");
        out.kid = kid->get_string();
    }
    auto payload = object_part(token.substr(first + 1, second - first - 1), "token payload");
    if (auto* e = std::get_if<std::string>(&payload))
        return std::move(*e);
    out.payload = std::move(std::get<json::object>(payload));
    auto signature = base64url_decode(token.substr(second + 1));
    if (!signature || signature->empty())
        return std::string("the token signature is missing or not base64url");
    out.signature = std::move(*signature);
    out.signing_input = std::string(token.substr(0, second));
    return out;
}

signature_check verify_signature(const compact_jws& jws, std::span<const public_key> keys) {
    bool tried = false;
    for (const auto& key : keys) {
        if (!jws.kid.empty() && key.kid() != jws.kid)
            continue;
        if (!key.fits(jws.alg))
            continue;
        tried = true;
        if (key.verify(jws.alg, jws.signing_input, jws.signature))
            return signature_check::verified;
    }
    return tried ? signature_check::bad_signature : signature_check::no_key;
}

} // namespace gate::protocol::jose
