// The gateway's token endpoint for enterprise-managed authorization (auth.ema): `POST
// /oauth/token` redeems an ID-JAG from `idpIssuer` (RFC 7523 jwt-bearer grant) for a short-lived
// ES256 access token the gateway signs, audience `auth.resource`, accepted on the MCP endpoint.
// Unauthenticated by design (the assertion is the credential), rate limited by
// `tokenRateLimitPerMinute`, each assertion's jti single-use. Also its key set
// (`/.well-known/jwks.json`) and its authorization server metadata (RFC 8414). On the io thread.
#pragma once

#include "actors/guards/sliding_window.hpp"
#include "config/model.hpp"
#include "gateway/auth/key_set_source.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "policy/jti_ledger.hpp"
#include "protocol/jose/es256_signer.hpp"
#include "protocol/jose/id_jag.hpp"
#include "protocol/jose/jwk.hpp"
#include "protocol/token_request.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

namespace gate::gateway {

class fleet_store;

using protocol::jwt_bearer_grant;

// The gateway's issuer identifier as an authorization server: the origin of `resource`.
std::string gateway_issuer(std::string_view resource);

// What every io thread's token endpoint spends together (docs/io-threads.md): the endpoint's
// rate and the assertions it redeemed, so a replay or a burst spread over threads is refused as
// on one. Off the call path: only POST /oauth/token takes its lock.
struct redemption_book {
    explicit redemption_book(std::int64_t per_minute) : rate(per_minute) {}
    std::mutex lock;
    actors::sliding_window rate;
    policy::jti_ledger redeemed;
};

class token_endpoint {
public:
    token_endpoint(boost::asio::any_io_executor ex, const config::auth& auth,
                   protocol::jose::es256_signer signer);

    // POST /oauth/token. Fills `rec` (method oauth/token, outcome, decision) for the audit.
    boost::asio::awaitable<transport::http_reply> redeem(const transport::http_request& req,
                                                         request_context& rec);
    transport::http_reply jwks() const;
    transport::http_reply metadata() const;

    const std::string& issuer() const { return issuer_; }
    // The fleet's shared store: an assertion redeemed through any instance is refused by the
    // others (its jti claimed there until it expires).
    void share_through(std::shared_ptr<fleet_store> fleet) { fleet_ = std::move(fleet); }
    // The first io thread's endpoint (run by `there`): its rate and its redeemed assertions are
    // this one's too, and the provider's key set is asked of it (fetched once for the process).
    void lean_on(token_endpoint& first, boost::asio::any_io_executor there) {
        book_ = first.book_;
        idp_keys_.ask_through(first.idp_keys_, std::move(there));
    }
    // The public half of the minting key, for verifying the tokens minted here.
    protocol::jose::public_key public_key() const;

private:
    // The answer when the endpoint's rate is spent.
    std::optional<transport::http_reply> rate_limited(request_context& rec);
    // The form's assertion, an ID-JAG of `idpIssuer` for this gateway, verified; else the
    // refusal.
    boost::asio::awaitable<std::variant<protocol::jose::verified_assertion, transport::http_reply>>
    verified(const protocol::token_request& form, request_context& rec);
    // The assertion's jti spent, here and in the fleet; the refusal when it was already (or
    // the ledger is full).
    boost::asio::awaitable<std::optional<transport::http_reply>>
    spend(const protocol::jose::verified_assertion& a, request_context& rec);
    transport::http_reply minted(const protocol::jose::verified_assertion& a,
                                 const std::vector<std::string>& scopes);

    config::auth auth_;
    config::ema ema_;
    protocol::jose::es256_signer signer_;
    std::string issuer_;
    key_set_source idp_keys_;
    std::shared_ptr<redemption_book> book_;
    std::shared_ptr<fleet_store> fleet_;
};

} // namespace gate::gateway
