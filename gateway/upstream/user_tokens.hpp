// Where a user-account upstream finds each user's token (docs/user-accounts.md): implemented
// by gateway/accounts/user_accounts, which sits above the upstream clients; an upstream client
// asks through this and knows nothing else of logins.
#pragma once

#include "config/model.hpp"
#include "gateway/upstream/upstream_credential.hpp"

#include <boost/asio/awaitable.hpp>
#include <optional>
#include <string>
#include <variant>

namespace gate::gateway {

class user_tokens {
public:
    // The header line of `caller`'s token at `u`, when one is fresh (no wait); none otherwise.
    virtual std::optional<std::string> line_now(const config::upstream& u,
                                                const caller_credential& caller) = 0;
    // The same, refreshed first when due; or why there is none (needs_login: no token, or
    // none that can be refreshed).
    virtual boost::asio::awaitable<std::variant<std::string, credential_failure>>
    line(const config::upstream& u, const caller_credential& caller) = 0;
    // The upstream refused `caller`'s token, sent as header line `line` (401): it is not sent
    // again. A token refreshed or logged in since it was sent is kept.
    virtual void refused(const config::upstream& u, const caller_credential& caller,
                         std::string_view line) = 0;

protected:
    ~user_tokens() = default;
};

} // namespace gate::gateway
