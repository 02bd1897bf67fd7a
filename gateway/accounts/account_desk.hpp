// What a call asks of users' accounts (docs/user-accounts.md): the caller's token at a
// user-account upstream (user_tokens), a login to send the user to, and whether that login
// finished. One io thread keeps the accounts (user_accounts); every other io thread asks it
// through an account_relay (docs/io-threads.md).
#pragma once

#include "config/model.hpp"
#include "gateway/upstream/upstream_credential.hpp"
#include "gateway/upstream/user_tokens.hpp"

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <string>
#include <variant>

namespace gate::gateway::accounts {

// A login the user is sent to: the id the elicitation carries, the link, and what to tell them.
struct login_offer {
    std::string id;
    std::string url;
    std::string message;
};

class account_desk : public user_tokens {
public:
    // A login for `caller` at `u` (joined when one is open), or why none can start: the
    // upstream's authorization server could not be found or used (named).
    virtual boost::asio::awaitable<std::variant<login_offer, std::string>>
    offer_login(const config::upstream& u, const caller_credential& caller, std::string request_id,
                std::string extra_scope) = 0;
    // Waits until login `id` finishes or `bound` passes: whether it connected.
    virtual boost::asio::awaitable<bool> finished(const std::string& id,
                                                  std::chrono::steady_clock::duration bound) = 0;

protected:
    ~account_desk() = default;
};

} // namespace gate::gateway::accounts
