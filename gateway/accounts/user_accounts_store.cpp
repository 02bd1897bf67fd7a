// The fleet's side of the users' tokens (user_accounts.hpp, share_through): each token sealed
// in the shared store under a name made from the upstream and a digest of the principal, read
// by an instance that has none, and refreshed by one instance at a time.
#include "gateway/accounts/sealed_tokens.hpp"
#include "gateway/accounts/user_accounts.hpp"
#include "protocol/digest.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace gate::gateway::accounts {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view vault_state = "vault";
constexpr std::string_view refresh_state = "vault-refresh";
constexpr auto refresh_claim = 15s; // longer than a refresh's token request can take
constexpr auto refresh_poll = 200ms;
// A record lives as long as it can be used: its refresh token's life is not told, so 30 days.
constexpr auto refreshable_life = std::chrono::hours(24 * 30);

std::chrono::milliseconds record_life(const account_tokens& t) {
    if (!t.refresh_token.empty() || t.expires_at == wall_clock::time_point::max())
        return std::chrono::duration_cast<std::chrono::milliseconds>(refreshable_life);
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(t.expires_at - wall_clock::now());
    return std::max(left, std::chrono::milliseconds(1000));
}

} // namespace

std::string user_accounts::record_name(const std::string& upstream, const std::string& principal) {
    // The principal as a digest: an issuer or subject is outside input, never a key's text.
    return upstream + ":" + protocol::sha256_hex(principal, 32);
}

void user_accounts::keep(const std::string& upstream, const std::string& principal,
                         account_tokens tokens) {
    if (store_ && !keys_.empty()) {
        auto name = record_name(upstream, principal);
        store_->put_later(vault_state, name, seal_tokens(tokens, keys_.front(), name),
                          record_life(tokens));
    }
    vault_.keep(upstream, principal, std::move(tokens));
}

asio::awaitable<bool> user_accounts::adopt(const std::string& upstream,
                                           const std::string& principal) {
    if (!store_ || keys_.empty())
        co_return false;
    auto name = record_name(upstream, principal);
    auto got = co_await store_->get(vault_state, name);
    if (!got || !*got)
        co_return false;
    auto tokens = open_tokens(**got, keys_, name);
    if (!tokens)
        co_return false; // sealed under a key this instance does not hold, or tampered with
    vault_.keep(upstream, principal, std::move(*tokens));
    co_return true;
}

void user_accounts::forget(const std::string& upstream, const std::string& principal) {
    vault_.forget(upstream, principal);
    if (store_)
        store_->erase(vault_state, record_name(upstream, principal));
}

asio::awaitable<void> user_accounts::await_fleet_refresh(const config::upstream& u,
                                                         const std::string& principal) {
    auto before = vault_.find(u.id, principal, wall_clock::now());
    std::string old = before.tokens ? before.tokens->access_token : std::string();
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (auto waited = 0ms; waited < refresh_claim; waited += refresh_poll) {
        timer.expires_after(refresh_poll);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (!co_await adopt(u.id, principal)) {
            vault_.forget(u.id, principal); // the fleet's record is gone: the refresh failed
            co_return;
        }
        auto now = vault_.find(u.id, principal, wall_clock::now());
        if (now.tokens && now.tokens->access_token != old)
            co_return; // the refresh landed
    }
}

} // namespace gate::gateway::accounts
