#include "gateway/auth/token_endpoint.hpp"

#include "gateway/fleet/fleet_store.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/jose/jws.hpp"
#include "protocol/random_id.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <boost/url/encoding_opts.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/parse_query.hpp>
#include <chrono>
#include <map>

namespace gate::gateway {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;
namespace jose = protocol::jose;

namespace {

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// RFC 6749 section 5.2, from the row's status and code: an error answer the client can act on,
// and the audit record's outcome, decision (the code) and text.
transport::http_reply refused(request_context& rec, gateway_error e, std::string why) {
    const auto& row = protocol::describe(e);
    std::string_view code =
        e == gateway_error::token_request_invalid ? std::string_view("invalid_request") : row.name;
    rec.audit.outcome = row.audit_outcome;
    rec.policy.decision = std::string(code);
    if (!row.metric_label.empty())
        rec.answer.rejection = std::string(row.metric_label);
    rec.audit.error = why;
    auto reply = error_reply({e, std::move(why), nullptr, code});
    reply.headers.emplace_back("Cache-Control", "no-store");
    return reply;
}

} // namespace

std::string gateway_issuer(std::string_view resource) {
    auto u = boost::urls::parse_uri(boost::core::string_view(resource.data(), resource.size()));
    if (!u)
        return std::string(resource);
    return std::string(u->scheme()) + "://" + std::string(u->encoded_authority());
}

token_endpoint::token_endpoint(asio::any_io_executor ex, const config::auth& auth,
                               jose::es256_signer signer)
    : auth_(auth), ema_(*auth.ema), signer_(std::move(signer)),
      issuer_(gateway_issuer(auth.resource.value_or(""))), idp_keys_(ex, ema_.idp_jwks_uri),
      book_(std::make_shared<redemption_book>(ema_.token_rate_limit_per_minute)) {}

jose::public_key token_endpoint::public_key() const {
    return std::get<jose::public_key>(jose::public_key::from_jwk(signer_.public_jwk()));
}

transport::http_reply token_endpoint::jwks() const {
    auto reply = transport::http_reply::json(
        http::status::ok,
        json::serialize(json::object{{"keys", json::array{signer_.public_jwk()}}}));
    reply.headers.emplace_back("Cache-Control", "max-age=300");
    return reply;
}

transport::http_reply token_endpoint::metadata() const {
    json::object body{
        {"issuer", issuer_},
        {"token_endpoint", issuer_ + "/oauth/token"},
        {"jwks_uri", issuer_ + "/.well-known/jwks.json"},
        {"grant_types_supported", json::array{jwt_bearer_grant}},
        {"token_endpoint_auth_methods_supported", json::array{"none"}},
        {"authorization_grant_profiles_supported",
         json::array{"urn:ietf:params:oauth:grant-profile:id-jag"}},
    };
    auto reply = transport::http_reply::json(http::status::ok, json::serialize(body));
    reply.headers.emplace_back("Cache-Control", "max-age=300");
    return reply;
}

transport::http_reply token_endpoint::minted(const jose::verified_assertion& a,
                                             const std::vector<std::string>& scopes) {
    auto now = unix_now();
    std::string scope;
    for (const auto& s : scopes)
        scope += (scope.empty() ? "" : " ") + s;
    json::object claims{{"iss", issuer_},
                        {"sub", a.subject},
                        {"aud", auth_.resource.value_or("")},
                        {"iat", now},
                        {"exp", now + ema_.token_ttl_sec},
                        {"jti", protocol::random_id()},
                        {"idp", ema_.idp_issuer}};
    if (!a.client_id.empty())
        claims["client_id"] = a.client_id;
    if (!scope.empty())
        claims["scope"] = scope;
    auto token = signer_.sign(json::object{{"typ", "at+jwt"}}, claims);
    json::object body{{"access_token", token},
                      {"token_type", "Bearer"},
                      {"expires_in", ema_.token_ttl_sec},
                      {"issued_token_type", "urn:ietf:params:oauth:token-type:access_token"}};
    if (!scope.empty())
        body["scope"] = scope;
    auto reply = transport::http_reply::json(http::status::ok, json::serialize(body));
    reply.headers.emplace_back("Cache-Control", "no-store");
    reply.headers.emplace_back("Pragma", "no-cache");
    return reply;
}

namespace {

// MCP enterprise-managed authorization 7.2.1: the intersection of what the client asks for and
// what the assertion carries; all of the assertion's when the client asks for none.
std::vector<std::string> granted_scopes(std::vector<std::string> carried,
                                        const std::optional<std::vector<std::string>>& asked) {
    if (asked)
        std::erase_if(carried, [&](const std::string& s) {
            return std::find(asked->begin(), asked->end(), s) == asked->end();
        });
    return carried;
}

} // namespace

std::optional<transport::http_reply> token_endpoint::rate_limited(request_context& rec) {
    std::optional<std::chrono::milliseconds> wait;
    {
        std::lock_guard held(book_->lock);
        wait = book_->rate.take(std::chrono::steady_clock::now());
    }
    if (!wait)
        return std::nullopt;
    auto reply =
        refused(rec, gateway_error::slow_down,
                protocol::gateway_error_text(gateway_error::slow_down,
                                             {std::to_string(ema_.token_rate_limit_per_minute)}));
    reply.headers.emplace_back("Retry-After", std::to_string(actors::whole_seconds(*wait)));
    return reply;
}

asio::awaitable<std::variant<jose::verified_assertion, transport::http_reply>>
token_endpoint::verified(const protocol::token_request& form, request_context& rec) {
    auto parsed = jose::parse_compact(form.assertion);
    if (auto* why = std::get_if<std::string>(&parsed))
        co_return refused(rec, gateway_error::invalid_grant, *why);
    auto& jws = std::get<jose::compact_jws>(parsed);
    // The issuer before any network I/O: an assertion of another issuer fetches nothing.
    if (jose::claimed_issuer(jws) != ema_.idp_issuer)
        co_return refused(rec, gateway_error::invalid_grant,
                          "the assertion's issuer is not " + ema_.idp_issuer);
    auto keys = co_await idp_keys_.keys(jws.kid);
    if (!keys)
        co_return refused(rec, gateway_error::invalid_grant,
                          "the key set of " + ema_.idp_issuer + " could not be fetched");
    if (jose::verify_signature(jws, keys->keys) != jose::signature_check::verified)
        co_return refused(rec, gateway_error::invalid_grant,
                          "the assertion's signature does not verify");
    auto checked = jose::check_id_jag(jws,
                                      {ema_.idp_issuer,
                                       {issuer_, issuer_ + "/", auth_.resource.value_or("")},
                                       auth_.resource.value_or("")},
                                      unix_now());
    if (auto* why = std::get_if<std::string>(&checked))
        co_return refused(rec, gateway_error::invalid_grant, *why);
    co_return std::get<jose::verified_assertion>(std::move(checked));
}

asio::awaitable<std::optional<transport::http_reply>>
token_endpoint::spend(const jose::verified_assertion& a, request_context& rec) {
    auto redemption = [&] {
        std::lock_guard held(book_->lock);
        return book_->redeemed.redeem(ema_.idp_issuer, a.jti, a.expires, unix_now());
    }();
    if (redemption == policy::jti_ledger::redemption::first && fleet_) {
        // First here; the fleet decides whether it is first anywhere. A store that does not
        // answer leaves this instance's ledger to decide (counted).
        auto ttl = std::chrono::seconds(std::max<std::int64_t>(a.expires - unix_now(), 1));
        auto fresh = co_await fleet_->claim_once("jti", ema_.idp_issuer + "\n" + a.jti, ttl);
        if (fresh && !*fresh)
            redemption = policy::jti_ledger::redemption::replayed;
    }
    switch (redemption) {
    case policy::jti_ledger::redemption::first:
        break;
    case policy::jti_ledger::redemption::replayed: {
        auto reply = refused(rec, gateway_error::invalid_grant,
                             "the assertion was already redeemed (jti " + a.jti + ")");
        rec.policy.decision = "replayed"; // alertable apart from other invalid grants
        co_return reply;
    }
    case policy::jti_ledger::redemption::full:
        co_return refused(rec, gateway_error::temporarily_unavailable,
                          protocol::gateway_error_text(gateway_error::temporarily_unavailable));
    }
    co_return std::nullopt;
}

asio::awaitable<transport::http_reply> token_endpoint::redeem(const transport::http_request& req,
                                                              request_context& rec) {
    rec.method = "oauth/token";
    if (auto reply = rate_limited(rec))
        co_return std::move(*reply);
    if (!std::string_view(header_value(req, "Content-Type"))
             .starts_with("application/x-www-form-urlencoded"))
        co_return refused(rec, gateway_error::token_request_invalid,
                          "the token request must be application/x-www-form-urlencoded");
    auto read = protocol::read_token_request(req.body());
    if (auto* no = std::get_if<protocol::token_request_refusal>(&read))
        co_return refused(rec,
                          no->error == "unsupported_grant_type"
                              ? gateway_error::unsupported_grant_type
                              : gateway_error::token_request_invalid,
                          no->why);
    auto& form = std::get<protocol::token_request>(read);
    auto checked = co_await verified(form, rec);
    if (auto* reply = std::get_if<transport::http_reply>(&checked))
        co_return std::move(*reply);
    auto& a = std::get<jose::verified_assertion>(checked);
    rec.who.caller =
        std::make_shared<const principal>(principal{a.subject, ema_.idp_issuer, {}, a.claims});
    if (form.client_id && !a.client_id.empty() && *form.client_id != a.client_id)
        co_return refused(rec, gateway_error::invalid_grant,
                          "the assertion was issued to another client");
    if (auto reply = co_await spend(a, rec))
        co_return std::move(*reply);
    rec.policy.decision = "minted";
    co_return minted(a, granted_scopes(a.scopes, form.scopes));
}

} // namespace gate::gateway
