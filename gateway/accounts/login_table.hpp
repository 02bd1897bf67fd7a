// The logins gate has started and not finished (docs/user-accounts.md): each bound to the
// principal, the upstream and the request that started it, reached by two single-purpose
// random handles: the login's id (the elicitation id, and the link the client shows its
// user) and, once the user's browser arrived, the OAuth `state` sent to the authorization
// server. A state is taken once; both expire; a second call of one principal for one
// upstream while a login is open joins it instead of starting another. Bounded per principal
// and in all. Plain C++, time passed in.
#pragma once

#include "protocol/oauth/token_form.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gate::gateway::accounts {

using steady = std::chrono::steady_clock;

// What finishing a login needs, fixed when it starts: the server it goes to and gate's
// client there.
struct login_target {
    std::string issuer;
    bool iss_required = false; // RFC 9207: the server says it sends `iss`
    std::string authorization_endpoint, token_endpoint;
    protocol::oauth::client_identity client;
    std::string revocation_endpoint; // RFC 7009 (empty: the server offers none)
    std::string resource;            // RFC 8707 (empty: not sent)
    std::string scope;
    std::string redirect_uri; // as it was when the login started (a reload may move gate)
};

struct pending_login {
    std::string id;
    std::string principal; // issuer\nsubject
    std::string subject;   // shown on the page
    std::string upstream;
    std::string request; // the JSON-RPC id of the call that started it, for the audit
    login_target target;
    steady::time_point expires_at{};
    // Set when the browser arrives: the state it was sent with and the PKCE verifier.
    std::string state;
    std::string verifier;
    std::string browser; // the cookie the browser got with it: only that browser finishes it
};

class login_table {
public:
    static constexpr auto lifetime = std::chrono::minutes(10);
    static constexpr std::size_t per_principal = 16;
    static constexpr std::size_t capacity = 10'000;

    // The open login of `principal` at `upstream`, if one has not expired.
    pending_login* joinable(std::string_view principal, std::string_view upstream,
                            steady::time_point now);
    // A new login under `id` (random, from the caller); the oldest of the principal's, or of
    // all, goes when its bound is reached.
    pending_login& open(pending_login login, steady::time_point now);
    pending_login* by_id(std::string_view id, steady::time_point now);
    // The browser arrived: the state and verifier it goes on with (a later arrival replaces
    // both, so only the latest redirect can finish).
    void arrived(pending_login& login, std::string state, std::string verifier,
                 std::string browser);
    // The login a redirect's state belongs to, taken: no second use.
    std::optional<pending_login> take_by_state(std::string_view state, steady::time_point now);
    void erase(std::string_view id);
    std::size_t size() const { return by_id_.size(); }

private:
    void expire(steady::time_point now);
    std::unordered_map<std::string, pending_login> by_id_;
    std::unordered_map<std::string, std::string> id_of_state_;
};

} // namespace gate::gateway::accounts
