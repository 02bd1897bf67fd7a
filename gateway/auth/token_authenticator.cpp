#include "gateway/auth/token_authenticator.hpp"

#include "protocol/jose/access_token.hpp"
#include "protocol/jose/jws.hpp"
#include "protocol/jose/lifetime.hpp"

#include <algorithm>
#include <boost/beast/core/string.hpp>
#include <boost/url/parse.hpp>
#include <chrono>

namespace gate::gateway {

namespace asio = boost::asio;
namespace jose = protocol::jose;

namespace {

auth_refusal invalid(std::string why) {
    return {"invalid_token", std::move(why)};
}

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

std::optional<std::string_view> bearer_of(std::string_view header) {
    constexpr std::string_view scheme = "Bearer";
    if (header.size() <= scheme.size() ||
        !boost::beast::iequals(header.substr(0, scheme.size()), scheme) ||
        header[scheme.size()] != ' ')
        return std::nullopt;
    auto token = header.substr(scheme.size() + 1);
    while (!token.empty() && token.front() == ' ')
        token.remove_prefix(1);
    while (!token.empty() && token.back() == ' ')
        token.remove_suffix(1);
    if (token.empty() || token.find(' ') != std::string_view::npos)
        return std::nullopt;
    return token;
}

std::string resource_metadata_url(std::string_view resource) {
    auto u = boost::urls::parse_uri(boost::core::string_view(resource.data(), resource.size()));
    if (!u)
        return std::string(resource);
    std::string out = std::string(u->scheme()) + "://" + std::string(u->encoded_authority()) +
                      "/.well-known/oauth-protected-resource";
    std::string_view path = u->encoded_path();
    if (path != "/")
        out += path;
    return out;
}

token_authenticator::token_authenticator(asio::any_io_executor ex, const config::auth& cfg,
                                         std::optional<own_issuer> own)
    : resource_(cfg.resource.value_or("")) {
    // Reserved first: each key set's handler names its issuer by index, and `this` stays put
    // (the gateway holds the authenticator by pointer).
    issuers_.reserve(cfg.issuers.size() + 1);
    for (const auto& i : cfg.issuers) {
        auto index = issuers_.size();
        auto withdrawn = [this, index](const std::vector<std::string>& kids) {
            verified_.forget(index, kids);
        };
        issuers_.push_back(
            {i, std::make_unique<key_set_source>(ex, i.jwks_uri, std::move(withdrawn)), nullptr});
    }
    if (cfg.introspection)
        introspection_ = std::make_unique<token_introspection>(ex, *cfg.introspection, resource_);
    if (own) {
        config::issuer self;
        self.issuer = own->issuer;
        auto set = std::make_shared<jose::key_set>();
        set->keys.push_back(std::move(own->key));
        issuers_.push_back({std::move(self), nullptr, std::move(set)});
    }
}

const token_authenticator::trusted* token_authenticator::issuer_named(std::string_view iss) const {
    for (const auto& t : issuers_)
        if (t.cfg.issuer == iss)
            return &t;
    return nullptr;
}

void token_authenticator::ask_through(token_authenticator& keeper, asio::any_io_executor there) {
    // One auth section (it cannot change without a restart): the same issuers in one order.
    for (std::size_t i = 0; i < issuers_.size() && i < keeper.issuers_.size(); ++i)
        if (issuers_[i].keys && keeper.issuers_[i].keys)
            issuers_[i].keys->ask_through(*keeper.issuers_[i].keys, there);
    if (introspection_ && keeper.introspection_)
        introspection_->ask_through(*keeper.introspection_, std::move(there));
}

std::uint64_t token_authenticator::key_set_fetches() const {
    std::uint64_t n = 0;
    for (const auto& t : issuers_)
        if (t.keys)
            n += t.keys->fetches();
    return n;
}

std::optional<std::variant<policy::caller_ref, auth_refusal>>
token_authenticator::authenticate_now(std::optional<std::string_view> authorization,
                                      bool query_token) {
    if (query_token)
        return auth_refusal{"invalid_request",
                            "access tokens are not accepted in the query string; send "
                            "Authorization: Bearer <token>"};
    if (!authorization)
        return auth_refusal{"", "this endpoint needs a Bearer token (Authorization header)"};
    auto token = bearer_of(*authorization);
    if (!token)
        return auth_refusal{"invalid_request",
                            "the Authorization header is not \"Bearer <token>\""};
    // A token verified moments ago is the same token now: its signature is not checked again
    // (an ES256 verification costs more than the rest of the call), only its expiry.
    if (auto who = verified_.find(*token, unix_now()))
        return who;
    // An opaque token (no JWS's dots) asked about moments ago: remembered by its digest.
    if (introspection_ && token->find('.') == std::string_view::npos)
        return introspection_->known(*token, unix_now());
    return std::nullopt;
}

asio::awaitable<std::variant<policy::caller_ref, auth_refusal>>
token_authenticator::authenticate(std::optional<std::string_view> authorization, bool query_token) {
    if (auto decided = authenticate_now(authorization, query_token))
        co_return std::move(*decided);
    auto token = bearer_of(*authorization); // a header authenticate_now did not refuse
    auto now = unix_now();
    auto parsed = jose::parse_compact(*token);
    if (auto* why = std::get_if<std::string>(&parsed)) {
        if (introspection_) // not a JWT: its issuer's endpoint says whose it is
            co_return co_await introspection_->ask(*token, now);
        co_return invalid(std::move(*why));
    }
    auto& jws = std::get<jose::compact_jws>(parsed);

    // The issuer first, before any network I/O: an untrusted one never makes gate fetch.
    auto iss = jose::claimed_issuer(jws);
    if (!iss)
        co_return invalid("the token names no issuer (iss)");
    const auto* issuer = issuer_named(*iss);
    if (!issuer)
        co_return invalid("the token's issuer " + *iss + " is not trusted");
    if (issuer->cfg.exchange_only)
        co_return invalid("tokens of " + *iss +
                          " are accepted only at the token endpoint, not presented directly");

    auto keys = issuer->fixed ? issuer->fixed : co_await issuer->keys->keys(jws.kid);
    if (!keys)
        co_return invalid("the key set of " + *iss + " could not be fetched");
    switch (jose::verify_signature(jws, keys->keys)) {
    case jose::signature_check::verified:
        break;
    case jose::signature_check::no_key:
        co_return invalid(jws.kid.empty()
                              ? "no key of " + *iss + " fits the token's algorithm " +
                                    std::string(jose::name(jws.alg))
                              : "no key of " + *iss + " has the token's kid " + jws.kid);
    case jose::signature_check::bad_signature:
        co_return invalid("the token's signature does not verify");
    }
    auto checked = jose::check_claims(
        jws, {issuer->cfg.issuer, resource_, issuer->cfg.groups_claim.value_or("")}, now);
    if (auto* why = std::get_if<std::string>(&checked))
        co_return invalid(std::move(*why));
    auto& v = std::get<jose::verified_token>(checked);
    auto who = std::make_shared<const principal>(principal{
        std::move(v.subject), std::move(v.issuer), std::move(v.groups), std::move(v.claims)});
    // Remembered until it expires (as the lifetime check counts it), for verified_tokens'
    // bound, and no longer than the issuer's key set stands unrefetched: past that, the next
    // call verifies it again, which fetches the set, and a key the issuer withdrew refuses it.
    auto exp = jose::numeric_date(who->claims, "exp").value_or(0);
    auto until = static_cast<std::int64_t>(exp) + jose::clock_leeway_seconds;
    if (issuer->keys)
        until = std::min<std::int64_t>(
            until, now + issuer->keys->fresh_for(std::chrono::steady_clock::now()).count());
    verified_.remember(*token, who, static_cast<std::size_t>(issuer - issuers_.data()), jws.kid,
                       now, until);
    co_return who;
}

} // namespace gate::gateway
