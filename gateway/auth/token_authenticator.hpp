// Inbound authentication (spec: Authentication, Inbound): the principal a request's Bearer
// token carries, checked in the spec's order: the issuer is trusted (before any network I/O),
// the signature verifies against that issuer's cached key set, the audience is `resource`,
// `sub` is non-empty, the algorithm asymmetric; and the token is alive. A token that is not a
// JWT at all is asked about at auth.introspection's endpoint, when one is configured
// (token_introspection.hpp). On the io thread.
#pragma once

#include "config/model.hpp"
#include "gateway/auth/key_set_source.hpp"
#include "gateway/auth/token_introspection.hpp"
#include "gateway/auth/verified_tokens.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/s2_authenticate.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::gateway {

// The token of an `Authorization: Bearer <token>` header (RFC 6750 section 2.1), or nullopt
// when the header is of another scheme or malformed.
std::optional<std::string_view> bearer_of(std::string_view header);

// Stage 2's verdicts (pipeline::authenticate_services).
class token_authenticator final : public pipeline::authenticate_services {
public:
    // `own`: the gateway's own issuer and minting key (auth.ema), trusted without a fetch.
    struct own_issuer {
        std::string issuer;
        protocol::jose::public_key key;
    };
    token_authenticator(boost::asio::any_io_executor ex, const config::auth& cfg,
                        std::optional<own_issuer> own = std::nullopt);
    // Its key sets call back into it (a withdrawn key's tokens are forgotten): it stays put.
    token_authenticator(const token_authenticator&) = delete;
    token_authenticator& operator=(const token_authenticator&) = delete;

    // `authorization`: the Authorization header, if sent; `query_token`: whether the request
    // target carried an access_token parameter (never accepted: MCP forbids tokens in URIs).
    boost::asio::awaitable<result> authenticate(std::optional<std::string_view> authorization,
                                                bool query_token) override;
    // The same answer where it needs no verification (a token verified moments ago, or a
    // request refused on its header alone); nullopt where authenticate must verify.
    std::optional<result> authenticate_now(std::optional<std::string_view> authorization,
                                           bool query_token) override;

    // From now on its key sets and introspection questions go to `keeper`'s (the same auth
    // section's authenticator on the first io thread, run by `there`): the process fetches
    // each key set, and asks about each opaque token, once (docs/io-threads.md).
    void ask_through(token_authenticator& keeper, boost::asio::any_io_executor there);

    // Key-set fetches so far, over every issuer (the flood tests count them).
    std::uint64_t key_set_fetches() const;
    // Questions asked at the introspection endpoint so far.
    std::uint64_t introspections() const {
        return introspection_ ? introspection_->questions() : 0;
    }

private:
    struct trusted {
        config::issuer cfg;
        std::unique_ptr<key_set_source> keys;                 // fetched from cfg.jwks_uri
        std::shared_ptr<const protocol::jose::key_set> fixed; // or known: the gateway's own
    };
    const trusted* issuer_named(std::string_view iss) const;

    std::string resource_;
    std::vector<trusted> issuers_;
    // auth.introspection: who an opaque token stands for.
    std::unique_ptr<token_introspection> introspection_;
    // Tokens verified recently (docs/security.md), each with the key that verified it.
    verified_tokens verified_;
};

// The URL of the resource metadata for `resource` (RFC 9728 section 3.1: the well-known path
// inserted between the host and the resource's path), the challenge's resource_metadata.
std::string resource_metadata_url(std::string_view resource);

} // namespace gate::gateway
