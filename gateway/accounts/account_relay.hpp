// Users' accounts as an io thread that does not keep them reaches them (docs/io-threads.md):
// a fresh token is read from the keeper's vault at once (under its lock); anything that may
// wait (a refresh, a token read from the fleet's store, a login offered, a login awaited) and
// a refused token are the keeper's to do, on its thread, with copies of what they read. One
// process, one vault, one login table, one refresh at a time per principal and upstream: a
// login finished through any thread serves calls on every thread.
#pragma once

#include "gateway/accounts/user_accounts.hpp"

#include <boost/asio/any_io_executor.hpp>

namespace gate::gateway::accounts {

class account_relay final : public account_desk {
public:
    // `keeper` lives on `keeper_thread`, and outlives this relay's calls (the keeper's io
    // thread stops last).
    account_relay(user_accounts& keeper, boost::asio::any_io_executor keeper_thread)
        : keeper_(keeper), keeper_thread_(std::move(keeper_thread)) {}

    std::optional<std::string> line_now(const config::upstream& u,
                                        const caller_credential& caller) override;
    boost::asio::awaitable<std::variant<std::string, credential_failure>>
    line(const config::upstream& u, const caller_credential& caller) override;
    void refused(const config::upstream& u, const caller_credential& caller,
                 std::string_view line) override;
    boost::asio::awaitable<std::variant<login_offer, std::string>>
    offer_login(const config::upstream& u, const caller_credential& caller, std::string request_id,
                std::string extra_scope) override;
    boost::asio::awaitable<bool> finished(const std::string& id,
                                          std::chrono::steady_clock::duration bound) override;

private:
    user_accounts& keeper_;
    boost::asio::any_io_executor keeper_thread_;
};

} // namespace gate::gateway::accounts
