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

constexpr std::string_view forgotten_topic = "vault-forgotten";
constexpr auto follow_interval = 250ms; // a revocation reaches every instance within it
constexpr auto follow_start_margin = std::chrono::minutes(1); // the clocks' skew tolerated
constexpr auto refresh_claim = 15s; // longer than a refresh's token request can take
constexpr auto refresh_poll = 200ms;
// A record lives as long as it can be used: its refresh token's life is not told, so 30 days.
constexpr auto refreshable_life = std::chrono::hours(24 * 30);

// An announcement: "upstream\ndigest", then "\nrevoke" when the grants are revoked at their
// servers too (a disconnect or an operator's revocation, not a token the upstream refused).
constexpr std::string_view revoke_mark = "\nrevoke";

std::string announcement(std::string_view upstream, std::string_view digest, at_server grant) {
    std::string out;
    out.append(upstream).append(1, '\n').append(digest);
    if (grant == at_server::revoked)
        out.append(revoke_mark);
    return out;
}

struct heard_forget {
    std::string_view upstream, digest;
    at_server grant = at_server::kept;
};

std::optional<heard_forget> read_announcement(std::string_view what) {
    heard_forget h;
    if (what.ends_with(revoke_mark)) {
        h.grant = at_server::revoked;
        what.remove_suffix(revoke_mark.size());
    }
    auto cut = what.find('\n');
    if (cut == std::string::npos || (cut == 0 && what.size() == 1))
        return std::nullopt; // never "everyone's everywhere": no instance announces that
    h.upstream = what.substr(0, cut);
    h.digest = what.substr(cut + 1);
    return h;
}

std::chrono::milliseconds record_life(const account_tokens& t) {
    if (!t.refresh_token.empty() || t.expires_at == wall_clock::time_point::max())
        return std::chrono::duration_cast<std::chrono::milliseconds>(refreshable_life);
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(t.expires_at - wall_clock::now());
    return std::max(left, std::chrono::milliseconds(1000));
}

} // namespace

std::string user_accounts::record_name(const std::string& upstream, const std::string& principal) {
    return upstream + ":" + account_vault::digest_of(principal);
}

std::string user_accounts::sealed_as(const std::string& upstream, const std::string& name) const {
    // The associated data: the record's name and the upstream's binding (binding_of), so a
    // record copied under another name, or kept from before the upstream moved, does not open.
    auto b = bindings_.find(upstream);
    return name + "\n" + (b == bindings_.end() ? std::string() : b->second);
}

void user_accounts::keep(const std::string& upstream, const std::string& principal,
                         account_tokens tokens) {
    if (store_ && !keys_.empty()) {
        auto name = record_name(upstream, principal);
        store_->put_later(vault_state, name,
                          seal_tokens(tokens, keys_.front(), sealed_as(upstream, name)),
                          record_life(tokens));
    }
    vault_.keep(upstream, principal, std::move(tokens));
}

asio::awaitable<user_accounts::store_read> user_accounts::adopt(const std::string& upstream,
                                                                const std::string& principal) {
    if (!store_ || keys_.empty())
        co_return store_read::none;
    auto name = record_name(upstream, principal);
    auto got = co_await store_->get(vault_state, name);
    if (!got)
        co_return store_read::unanswered;
    if (!*got)
        co_return store_read::none;
    auto tokens = open_tokens(**got, keys_, sealed_as(upstream, name));
    if (!tokens)
        co_return store_read::none; // sealed under a key or binding this instance does not hold
    if ((*got)->starts_with("v1." + keys_.front().id + "."))
        vault_.keep(upstream, principal, std::move(*tokens));
    else // sealed under the previous key: sealed again under this one, so that one can retire
        keep(upstream, principal, std::move(*tokens));
    co_return store_read::adopted;
}

void user_accounts::forget(const std::string& upstream, const std::string& principal,
                           at_server grant) {
    auto taken = vault_.forget(upstream, principal);
    if (taken && grant == at_server::revoked)
        revoke_grants({{upstream, principal, std::move(*taken)}});
    if (!store_)
        return;
    store_->erase(vault_state, {record_name(upstream, principal)});
    store_->forgetting().announce(
        forgotten_topic, announcement(upstream, account_vault::digest_of(principal), grant));
}

asio::awaitable<std::size_t> user_accounts::forget_everywhere(std::string upstream,
                                                              std::string digest) {
    auto taken = vault_.forget_where(upstream, digest);
    auto here = taken.size();
    revoke_grants(std::move(taken));
    if (!store_)
        co_return here;
    if (digest.empty()) {
        co_await store_->forgetting().erase_prefixed(vault_state, upstream + ":");
    } else {
        std::vector<std::string> names;
        for (const auto& [id, u] : upstreams_)
            if (upstream.empty() || id == upstream)
                names.push_back(id + ":" + digest);
        store_->erase(vault_state, names);
    }
    store_->forgetting().announce(forgotten_topic,
                                  announcement(upstream, digest, at_server::revoked));
    co_return here;
}

asio::awaitable<void> user_accounts::follow(std::function<bool()> stopping) {
    if (!store_)
        co_return;
    asio::steady_timer timer(co_await asio::this_coro::executor);
    // From a minute before this instance started (the stream's ids are the store's clock):
    // what was announced while it was starting is applied, though it may already hold a token
    // a request brought it before the first read.
    auto cursor = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     (wall_clock::now() - follow_start_margin).time_since_epoch())
                                     .count()) +
                  "-0";
    while (!stopping()) {
        timer.expires_after(follow_interval);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (stopping())
            break;
        auto news = co_await store_->forgetting().announced_after(forgotten_topic, cursor);
        if (!news)
            continue;
        cursor = std::move(news->cursor);
        for (const auto& what : news->items)
            if (auto heard = read_announcement(what)) {
                auto taken = vault_.forget_where(heard->upstream, heard->digest);
                if (heard->grant == at_server::revoked) // each instance revokes what it held
                    revoke_grants(std::move(taken));
            }
    }
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
        auto read = co_await adopt(u.id, principal);
        if (read == store_read::unanswered)
            continue; // the store is slow or down: the token held is kept meanwhile
        if (read == store_read::none) {
            vault_.forget(u.id, principal); // the fleet's record is gone: the refresh failed
            co_return;
        }
        auto now = vault_.find(u.id, principal, wall_clock::now());
        if (now.what == account_vault::standing::fresh ||
            (now.tokens && now.tokens->access_token != old))
            co_return; // the refresh landed
    }
}

} // namespace gate::gateway::accounts
