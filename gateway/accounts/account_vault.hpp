// The tokens each principal holds at each user-account upstream (docs/user-accounts.md): kept
// in memory by (upstream, principal), each with the header line a request carries, its
// expiry and its refresh token. Plain C++, time passed in: a token within a minute of its
// expiry is due for refresh; one past it is not sent. Bounded: the oldest connection goes
// first when the vault is full. Tokens never leave through a listing (connections()).
// Written by the io thread that keeps the accounts, read by every io thread (docs/io-threads.md):
// each call holds a lock, and what find() points at stays valid until that thread's next write.
#pragma once

#include "protocol/oauth/token_form.hpp"

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::gateway::accounts {

using wall_clock = std::chrono::system_clock;

struct account_tokens {
    std::string access_token;
    std::string refresh_token; // empty: none was issued
    wall_clock::time_point expires_at = wall_clock::time_point::max();
    std::string scope; // as granted (or asked, when the server did not say)
    wall_clock::time_point connected_at{};
    // The client the tokens were issued to: a refresh must be made as that client (each
    // instance of a fleet may have registered its own).
    protocol::oauth::client_identity client;
};

// A connection as its principal or an operator sees it: never a token.
struct connection_view {
    std::string upstream, principal, scope;
    wall_clock::time_point connected_at{}, expires_at{};
    bool refreshable = false;
};

// Tokens taken out of the vault: what a revocation at the authorization server needs.
struct forgotten_tokens {
    std::string upstream, principal;
    account_tokens tokens;
};

class account_vault {
public:
    static constexpr auto refresh_margin = std::chrono::seconds(60);
    static constexpr std::size_t default_capacity = 100'000;

    enum class standing { none, fresh, due, expired };
    struct lookup {
        standing what = standing::none;
        const account_tokens* tokens = nullptr;
        const std::string* line = nullptr; // "Authorization: Bearer ..." when fresh or due
    };

    explicit account_vault(std::size_t capacity = default_capacity) : capacity_(capacity) {}

    lookup find(std::string_view upstream, std::string_view principal,
                wall_clock::time_point now) const;
    // The same for the principal "issuer\nsubject", its key never built: a call's lookup.
    lookup find(std::string_view upstream, std::string_view issuer, std::string_view subject,
                wall_clock::time_point now) const;
    // The header line of the principal "issuer\nsubject" at `upstream` when its token is fresh,
    // copied: what any io thread's call sends without asking the keeper.
    std::optional<std::string> fresh_line(std::string_view upstream, std::string_view issuer,
                                          std::string_view subject,
                                          wall_clock::time_point now) const;
    void keep(std::string_view upstream, std::string_view principal, account_tokens tokens);
    // The tokens taken out, when there were.
    std::optional<account_tokens> forget(std::string_view upstream, std::string_view principal);
    // Every connection at `upstream` ("": any) of the principal whose digest is `digest` ("":
    // any): what an operator's revocation or another instance's announcement names. Those taken.
    std::vector<forgotten_tokens> forget_where(std::string_view upstream, std::string_view digest);
    // The digest a principal is named by outside this process (the fleet's store, an
    // announcement): an issuer or a subject is outside input, never a key's text.
    static std::string digest_of(std::string_view principal);
    std::vector<connection_view> connections(std::string_view principal) const; // "": all
    std::size_t size() const;

private:
    struct entry {
        std::string upstream, principal, digest;
        account_tokens tokens;
        std::string line;
    };
    static std::string key_of(std::string_view upstream, std::string_view principal);
    lookup probed(wall_clock::time_point now) const; // the entry probe_ names, lock held
    std::size_t capacity_;
    mutable std::mutex lock_; // uncontended on one io thread; only user-account calls take it
    std::unordered_map<std::string, entry> entries_;
    // The key a lookup builds, kept between lookups: a call's lookup allocates nothing.
    mutable std::string probe_;
};

} // namespace gate::gateway::accounts
