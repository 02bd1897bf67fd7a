// Each user's own account at the upstreams whose strategy is `user-account`
// (docs/user-accounts.md): gate is the OAuth client of each such upstream's authorization
// server, runs the login for a principal that has no token there, keeps the tokens it gets
// (account_vault), refreshes them before they expire (one refresh at a time per principal and
// upstream), and serves the two pages a user's browser meets: the connect page the client
// shows the user (gate's own link, naming who is connecting what) and the redirect URI the
// authorization server sends the browser back to. Lives on the io thread; the decisions are
// the vault's and the login table's, plain C++ with time passed in.
#pragma once

#include "config/model.hpp"
#include "gateway/accounts/account_desk.hpp"
#include "gateway/accounts/account_vault.hpp"
#include "gateway/accounts/login_table.hpp"
#include "gateway/fleet/fleet_store.hpp"
#include "gateway/upstream/upstream_credential.hpp"
#include "gateway/upstream/user_tokens.hpp"
#include "policy/principal.hpp"
#include "protocol/oauth/metadata.hpp"
#include "protocol/oauth/token_answer.hpp"
#include "protocol/oauth/token_form.hpp"
#include "protocol/sealed_box.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"
#include "transport/io/ask_flight.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::gateway::accounts {

inline constexpr std::string_view connect_path = "/oauth/connect";
inline constexpr std::string_view callback_path = "/oauth/callback";
inline constexpr std::string_view client_metadata_path = "/oauth/client-metadata.json";

// What happened to a user's account, for the audit and /metrics (told to the gateway).
struct account_event {
    // loginStarted | connected | loginFailed | refreshed | refreshFailed | refused |
    // disconnected | revoked | grantRevoked | grantRevokeFailed (RFC 7009, at the server)
    std::string_view kind;
    std::string upstream;  // "" for a revocation: every user-account upstream
    std::string principal; // issuer\nsubject; "" for a revocation: every principal
    std::string error;     // a failure's reason (never a token)
    std::string by;        // a revocation: the operator who asked for it ("subject at issuer")
};

// What becomes of a forgotten connection's grant at its authorization server: kept (gate only
// forgets it: a token the upstream refused, a reload) or revoked there too (RFC 7009).
enum class at_server { kept, revoked };

// A connection as GET /api/connections and /api/accounts show it (never a token), and a
// refusal of those APIs ({"error": why}, not cached).
boost::json::object connection_json(const connection_view& c);
transport::http_reply connections_refusal(boost::beast::http::status status, std::string why);

class user_accounts final : public account_desk {
public:
    static constexpr auto metadata_lifetime = std::chrono::minutes(10);
    static constexpr auto probe_timeout = std::chrono::seconds(5);

    explicit user_accounts(boost::asio::any_io_executor ex) : ex_(std::move(ex)) {}

    // The running document's public URL (a reload may change it); its upstreams' logins
    // started under an older document finish with what they were started with.
    void use(const config::document& doc);

    // The header line of `caller`'s token at `u`, when one is fresh (no wait).
    std::optional<std::string> line_now(const config::upstream& u,
                                        const caller_credential& caller) override;
    // The same, refreshed first when due; or why there is none (needs_login: a login
    // starts the way out).
    boost::asio::awaitable<std::variant<std::string, credential_failure>>
    line(const config::upstream& u, const caller_credential& caller) override;
    // The upstream refused the token sent as `line` (401): it is forgotten, and the next call
    // logs in; unless the user holds another token by now (refreshed, or a new login meanwhile).
    void refused(const config::upstream& u, const caller_credential& caller,
                 std::string_view line) override;

    // A login for `caller` at `u` (joined when one is open), or why none can start: the
    // upstream's authorization server could not be found or used (named).
    boost::asio::awaitable<std::variant<login_offer, std::string>>
    offer_login(const config::upstream& u, const caller_credential& caller, std::string request_id,
                std::string extra_scope) override;
    // Waits until login `id` finishes or `bound` passes: whether it connected.
    boost::asio::awaitable<bool> finished(const std::string& id,
                                          std::chrono::steady_clock::duration bound) override;

    // GET /api/connections: the caller's own connections, never a token. DELETE
    // /api/connections/<upstream>: one of them forgotten, here and in the fleet's store (204;
    // 404 when it holds none).
    transport::http_reply connections_of(const policy::caller_ref& caller) const;
    boost::asio::awaitable<transport::http_reply> disconnect(const policy::caller_ref& caller,
                                                             std::string_view upstream);
    // The operator's (a caller holding server.vault.operatorScope): GET /api/accounts lists
    // every principal's connections this instance holds (?upstream= narrows it); DELETE
    // /api/accounts?upstream=&issuer=&subject= revokes an upstream's, a principal's or one
    // connection, here, in the fleet's store and in every instance's memory.
    transport::http_reply everyones_connections(const policy::caller_ref& caller,
                                                const transport::http_request& req) const;
    boost::asio::awaitable<transport::http_reply> revoke(const policy::caller_ref& caller,
                                                         const transport::http_request& req);
    // With a shared store: follows what other instances forgot (a disconnect, a revocation, a
    // refused token) and forgets it here too, until `stopping` says so.
    boost::asio::awaitable<void> follow(std::function<bool()> stopping);

    // GET /oauth/client-metadata.json: gate as an OAuth client (a client ID metadata
    // document): its name, its redirect URI, a public client using PKCE.
    transport::http_reply client_metadata() const;

    // GET and POST /oauth/connect, GET /oauth/callback.
    boost::asio::awaitable<transport::http_reply> connect(const transport::http_request& req);
    boost::asio::awaitable<transport::http_reply> callback(const transport::http_request& req);

    // Whether the running document has a user-account upstream (its pages are served).
    bool in_use() const { return in_use_; }
    // Another io thread keeps the accounts (docs/io-threads.md): this one keeps the running
    // document's settings for its pages and nothing else (no tokens, no store, no forgetting
    // at a reload; its account pages answer 503 while the thread stops).
    void stand_aside() {
        keeps_ = false;
        store_.reset();
    }
    bool keeps() const { return keeps_; }
    account_vault& vault() { return vault_; }
    // With the fleet's shared store: every token gate gets is kept there too, sealed under
    // keys.front() (the others still open what they sealed); an instance without a user's
    // token reads it there, and one refresh at a time runs in the whole fleet.
    void share_through(std::shared_ptr<fleet_store> store,
                       std::vector<protocol::sealing_key> keys) {
        store_ = std::move(store);
        keys_ = std::move(keys);
    }
    // Who hears of each account_event.
    void tell(std::function<void(const account_event&)> news) { news_ = std::move(news); }

private:
    struct target_entry {
        login_target target;
        std::chrono::steady_clock::time_point fetched{};
    };
    struct waiter {
        std::shared_ptr<boost::asio::steady_timer> timer;
        bool* connected = nullptr;
    };
    boost::asio::awaitable<std::variant<login_target, std::string>>
    target_for(const config::upstream& u);
    boost::asio::awaitable<std::variant<login_target, std::string>>
    discover(const config::upstream& u);
    // The upstream's challenge to a request without a token (empty when it answers none).
    boost::asio::awaitable<protocol::oauth::bearer_challenge> challenge_of(const std::string& url);
    // gate's client at the server `m` describes: the configured one, its client ID metadata
    // document, or a registration (kept per issuer); or why none.
    boost::asio::awaitable<std::variant<protocol::oauth::client_identity, std::string>>
    client_at(const config::upstream& u, const protocol::oauth::server_metadata& m);
    boost::asio::awaitable<std::variant<protocol::oauth::client_identity, std::string>>
    registered_client(const std::string& registration_endpoint, const std::string& issuer);
    // One refresh in the fleet (its claim), then refresh_here: the token request.
    boost::asio::awaitable<void> refresh(const config::upstream& u, const std::string& principal);
    boost::asio::awaitable<void> refresh_here(const config::upstream& u,
                                              const std::string& principal);
    // One token request at `t`'s token endpoint: `form` with the resource and gate's client
    // authentication added; the token, or why none (the endpoint's refusal or the fetch's).
    boost::asio::awaitable<
        std::variant<protocol::oauth::issued_token, protocol::oauth::token_refusal>>
    ask_token(const login_target& t, protocol::oauth::token_form form);
    boost::asio::awaitable<transport::http_reply> redeem(pending_login login, std::string code);
    void wake(const std::string& id, bool connected);
    // The store's side (no-ops without one): the record's name, a token written there, read
    // from there into the vault (whether one was), and taken away.
    static constexpr std::string_view vault_state = "vault";           // the sealed records
    static constexpr std::string_view refresh_state = "vault-refresh"; // the fleet's claims
    static std::string record_name(const std::string& upstream, const std::string& principal);
    std::string sealed_as(const std::string& upstream, const std::string& name) const;
    void keep(const std::string& upstream, const std::string& principal, account_tokens tokens);
    enum class store_read { adopted, none, unanswered };
    boost::asio::awaitable<store_read> adopt(const std::string& upstream,
                                             const std::string& principal);
    // Forgotten here, in the store, and announced to the fleet's other instances; with
    // `revoke_grant` (a user's disconnect) the grant is revoked at its server too, by every
    // instance that held it.
    void forget(const std::string& upstream, const std::string& principal,
                at_server grant = at_server::kept);
    // Every instance forgets `upstream`'s ("": every one's) connections of the principal
    // with `digest` ("": everyone's), and revokes their grants at their servers: here at once,
    // then in the store and the announcement.
    boost::asio::awaitable<std::size_t> forget_everywhere(std::string upstream, std::string digest);
    // RFC 7009: the grants of `taken` revoked at their authorization servers, one request at a
    // time in the order given, by a worker that runs while any wait (bounded).
    void revoke_grants(std::vector<forgotten_tokens> taken);
    boost::asio::awaitable<void> drain_revocations();
    boost::asio::awaitable<void> revoke_grant(const forgotten_tokens& f);
    // A reload that drops an upstream or changes where it is or how gate logs in there forgets
    // its tokens: a token is never sent anywhere but where it was issued for.
    void forget_changed(const config::document& doc);
    // Another instance holds the fleet's refresh: its result, read from the store when it lands.
    boost::asio::awaitable<void> await_fleet_refresh(const config::upstream& u,
                                                     const std::string& principal);
    std::string redirect_uri() const { return public_url_ + std::string(callback_path); }

    boost::asio::any_io_executor ex_;
    std::string public_url_;
    std::string client_metadata_url_; // "": gate has none (it registers instead)
    bool in_use_ = false;
    bool keeps_ = true;
    // The running document's user-account upstreams, by id.
    std::map<std::string, config::upstream, std::less<>> upstreams_;
    // Where each user-account upstream is and how gate logs in there, as last used.
    std::map<std::string, std::string, std::less<>> bindings_; // id -> binding_of
    static std::string binding_of(const config::upstream& u);
    std::optional<std::string> operator_scope_;
    account_vault vault_;
    login_table logins_;
    std::map<std::string, target_entry> targets_;                              // by upstream id
    std::map<std::string, protocol::oauth::client_identity> registrations_;    // by issuer
    std::map<std::string, std::shared_ptr<transport::ask_flight>> refreshing_; // vault key
    std::multimap<std::string, waiter> waiters_;                               // by login id
    struct ended_login {
        bool connected = false;
        std::chrono::steady_clock::time_point at{};
    };
    std::map<std::string, ended_login> ended_; // by login id, for as long as a link lives
    std::deque<forgotten_tokens> revoking_;    // grants waiting for their revocation
    bool revoking_busy_ = false;
    std::function<void(const account_event&)> news_;
    void told(std::string_view kind, const std::string& upstream, const std::string& principal,
              std::string error = {}, std::string by = {}) {
        if (news_)
            news_({kind, upstream, principal, std::move(error), std::move(by)});
    }
    std::shared_ptr<fleet_store> store_;
    std::vector<protocol::sealing_key> keys_;
};

} // namespace gate::gateway::accounts
