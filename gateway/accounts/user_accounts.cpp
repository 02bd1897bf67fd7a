// The login's steps, in the order a user meets them: a call finds no token (line), gate
// offers a login (offer: the upstream's authorization server found and gate's client there
// known), the browser opens the connect page and continues (connect: state, PKCE and a cookie
// minted, then the authorization server), and comes back (callback: the state taken once, the
// cookie and `iss` checked, the code redeemed, the tokens kept, the waiting call woken).
#include "gateway/accounts/user_accounts.hpp"

#include "gateway/accounts/oauth_requests.hpp"
#include "protocol/digest.hpp"
#include "protocol/oauth/metadata.hpp"
#include "protocol/oauth/token_answer.hpp"
#include "transport/client/http_fetch.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway::accounts {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;
namespace oauth = protocol::oauth;
using steady_clock = std::chrono::steady_clock;

namespace {

// The first of `urls` that answers 200 with a document `read` accepts; or why none did.
template <class Read>
asio::awaitable<std::variant<std::invoke_result_t<Read, std::string_view>, std::string>>
first_document(asio::any_io_executor ex, const std::vector<std::string>& urls, Read read) {
    std::string why = "no URL to ask";
    for (const auto& url : urls) {
        auto got = co_await transport::http_fetch(ex, json_get(url));
        if (auto* e = std::get_if<std::string>(&got)) {
            why = *e;
            continue;
        }
        auto& a = std::get<transport::fetch_answer>(got);
        if (a.status != 200) {
            why = url + " answered HTTP " + std::to_string(a.status);
            continue;
        }
        co_return read(a.body);
    }
    co_return why;
}

} // namespace

void user_accounts::use(const config::document& doc) {
    public_url_ = doc.server.public_url.value_or("");
    client_metadata_url_ = doc.server.client_metadata_url.value_or(
        public_url_.starts_with("https://") ? public_url_ + std::string(client_metadata_path) : "");
    operator_scope_ = doc.server.vault_operator_scope;
    if (keeps_)
        forget_changed(doc);
    upstreams_.clear();
    for (const auto& u : doc.upstreams)
        if (u.auth.strategy == "user-account")
            upstreams_.emplace(u.id, u);
    in_use_ = !upstreams_.empty();
    targets_.clear(); // a reload may change an upstream's client or server
}

void user_accounts::forget_changed(const config::document& doc) {
    decltype(bindings_) next;
    for (const auto& u : doc.upstreams)
        if (u.auth.strategy == "user-account")
            next.emplace(u.id, binding_of(u));
    for (const auto& [id, was] : bindings_) {
        auto now = next.find(id);
        if (now != next.end() && now->second == was)
            continue;
        auto n = vault_.forget_where(id, "").size();
        if (store_) // every instance's reload erases the same records: idempotent
            asio::co_spawn(
                ex_,
                [store = store_, prefix = id + ":"]() -> asio::awaitable<void> {
                    co_await store->forgetting().erase_prefixed(vault_state, prefix);
                },
                asio::detached);
        if (n > 0)
            spdlog::info("upstream {} is gone or changed its URL or login: its {} users' "
                         "tokens are forgotten (they log in again)",
                         id, n);
    }
    bindings_ = std::move(next);
}

std::string user_accounts::binding_of(const config::upstream& u) {
    // What a token is bound to: where it goes, what it is for, who issued it to which client.
    // Changed, the token is forgotten; a record sealed under another binding does not open.
    std::string b;
    for (const auto& url : u.urls)
        b.append(url).append(1, '\n');
    for (const auto* part : {&u.auth.resource, &u.auth.authorization_server})
        b.append(1, '\n').append(part->value_or(""));
    b.append(1, '\n').append(u.auth.client_id);
    return protocol::sha256_hex(b, 16);
}

std::optional<std::string> user_accounts::line_now(const config::upstream& u,
                                                   const caller_credential& caller) {
    return vault_.fresh_line(u.id, caller.issuer, caller.subject, wall_clock::now());
}

asio::awaitable<std::variant<std::string, credential_failure>>
user_accounts::line(const config::upstream& u, const caller_credential& caller) {
    auto principal = caller.principal();
    auto found = vault_.find(u.id, principal, wall_clock::now());
    using standing = account_vault::standing;
    if (found.what == standing::none && co_await adopt(u.id, principal) == store_read::adopted)
        found = vault_.find(u.id, principal, wall_clock::now()); // connected through another
    if (found.what == standing::fresh)
        co_return *found.line;
    if (found.what != standing::none && !found.tokens->refresh_token.empty()) {
        auto key = u.id + '\n' + principal;
        auto& flight = refreshing_[key];
        if (!flight)
            flight = std::make_shared<transport::ask_flight>();
        auto held = flight; // the map's entry may go while this waits
        if (co_await held->run_or_wait([&] { return refresh(u, principal); }))
            refreshing_.erase(key);
        found = vault_.find(u.id, principal, wall_clock::now());
        if (found.what == standing::fresh || found.what == standing::due)
            co_return *found.line;
    } else if (found.what == standing::due) {
        co_return *found.line; // no refresh token: used until it expires
    }
    credential_failure f{"no account of this user is connected at upstream " + u.id};
    f.needs_login = true;
    co_return f;
}

void user_accounts::refused(const config::upstream& u, const caller_credential& caller,
                            std::string_view line) {
    auto principal = caller.principal();
    auto held = vault_.find(u.id, principal, wall_clock::now());
    if (!held.tokens)
        return; // forgotten already (another call's 401 came first): said once
    if (held.line && *held.line != line) {
        // Refused after another call refreshed it, or the user logged in again: the token
        // refused is gone already, and the one in hand is not the upstream's verdict.
        spdlog::debug("upstream {} refused a token of {} that was since replaced", u.id,
                      caller.subject);
        return;
    }
    forget(u.id, principal);
    // The upstream may have moved to another authorization server: found again at the next
    // login (a registration is kept per issuer, so a new server gets its own).
    targets_.erase(u.id);
    told("refused", u.id, principal, "the upstream refused the token (HTTP 401)");
}

asio::awaitable<void> user_accounts::refresh(const config::upstream& u,
                                             const std::string& principal) {
    if (store_) {
        // Another instance may have refreshed it already (a token other than the one found
        // due is used as it is); if one is refreshing it now, its result is read when it
        // lands: one refresh in the fleet.
        auto due = vault_.find(u.id, principal, wall_clock::now());
        std::string seen = due.tokens ? due.tokens->access_token : std::string();
        co_await adopt(u.id, principal);
        auto now = vault_.find(u.id, principal, wall_clock::now());
        if (now.what == account_vault::standing::fresh ||
            (now.tokens && !seen.empty() && now.tokens->access_token != seen))
            co_return;
        auto name = record_name(u.id, principal);
        auto claimed = co_await store_->claim_once(refresh_state, name, std::chrono::seconds(15));
        if (claimed && !*claimed)
            co_return co_await await_fleet_refresh(u, principal);
        co_await refresh_here(u, principal);
        // Released once the result is in the store (the same connection, in order): the next
        // refresh (a new login's token may be due at once) does not wait out the claim.
        if (claimed)
            store_->erase(refresh_state, {name});
        co_return;
    }
    co_await refresh_here(u, principal);
}

asio::awaitable<void> user_accounts::refresh_here(const config::upstream& u,
                                                  const std::string& principal) {
    auto found = vault_.find(u.id, principal, wall_clock::now());
    if (!found.tokens || found.tokens->refresh_token.empty())
        co_return;
    // Copied: the vault may change while the token endpoint is asked.
    auto refresh_token = found.tokens->refresh_token;
    auto scope = found.tokens->scope;
    auto connected_at = found.tokens->connected_at;
    auto client = found.tokens->client;
    auto target = co_await target_for(u);
    if (auto* why = std::get_if<std::string>(&target)) {
        told("refreshFailed", u.id, principal, *why);
        spdlog::warn("refreshing a user's token at upstream {}: {}", u.id, *why);
        co_return; // kept: the server may be back before the token expires
    }
    oauth::token_form form;
    form.add("grant_type", "refresh_token").add("refresh_token", refresh_token);
    auto& at = std::get<login_target>(target);
    if (!client.id.empty()) // as the client the tokens were issued to, whichever instance that was
        at.client = client;
    auto read = co_await ask_token(at, std::move(form));
    if (auto* issued = std::get_if<oauth::issued_token>(&read)) {
        auto now = wall_clock::now();
        keep(u.id, principal,
             {issued->access_token,
              issued->refresh_token.empty() ? refresh_token : issued->refresh_token,
              issued->expires_in ? now + *issued->expires_in : wall_clock::time_point::max(),
              issued->scope.value_or(scope), connected_at, std::move(client)});
        told("refreshed", u.id, principal);
        co_return;
    }
    auto& refusal = std::get<oauth::token_refusal>(read);
    told("refreshFailed", u.id, principal, refusal.why);
    if (refusal.error == "invalid_grant") {
        // The refresh token is no longer good: the user is asked to log in again.
        forget(u.id, principal);
        co_return;
    }
    spdlog::warn("refreshing a user's token at upstream {} failed: {}", u.id, refusal.why);
}

asio::awaitable<std::variant<oauth::issued_token, oauth::token_refusal>>
user_accounts::ask_token(const login_target& t, oauth::token_form form) {
    if (!t.resource.empty())
        form.add("resource", t.resource);
    form.authenticate(t.client);
    auto got = co_await transport::http_fetch(ex_, form_post(t.token_endpoint, std::move(form)));
    if (auto* e = std::get_if<std::string>(&got))
        co_return oauth::token_refusal{std::move(*e), {}};
    auto& a = std::get<transport::fetch_answer>(got);
    co_return oauth::read_token_answer(a.status, a.body);
}

asio::awaitable<std::variant<login_target, std::string>>
user_accounts::target_for(const config::upstream& u) {
    auto now = steady_clock::now();
    if (auto it = targets_.find(u.id);
        it != targets_.end() && now - it->second.fetched < metadata_lifetime)
        co_return it->second.target;
    auto found = co_await discover(u);
    if (auto* t = std::get_if<login_target>(&found))
        targets_[u.id] = {*t, now};
    co_return found;
}

asio::awaitable<oauth::bearer_challenge> user_accounts::challenge_of(const std::string& url) {
    // A request without a token, as an MCP client's first one is: a protected server answers
    // 401 with its challenge. A list, not initialize: a server may let initialize through.
    auto probe = json_get(url);
    probe.method = "POST";
    probe.content_type = "application/json";
    probe.body = R"({"jsonrpc":"2.0","id":0,"method":"tools/list","params":{}})";
    probe.timeout = probe_timeout;
    probe.headers = {{"Accept", "application/json, text/event-stream"},
                     {"MCP-Protocol-Version", "2025-11-25"}};
    auto got = co_await transport::http_fetch(ex_, std::move(probe));
    auto* a = std::get_if<transport::fetch_answer>(&got);
    if (!a || a->status != 401)
        co_return oauth::bearer_challenge{};
    co_return oauth::read_bearer_challenge(a->www_authenticate);
}

asio::awaitable<std::variant<login_target, std::string>>
user_accounts::discover(const config::upstream& u) {
    const auto& a = u.auth;
    const auto& url = u.urls.front();
    login_target t;
    t.scope = oauth::scope_param(a.scopes);
    std::string issuer;
    if (a.authorization_server) {
        issuer = *a.authorization_server;
        t.resource = a.resource.value_or(url);
    } else {
        // MCP's discovery: the metadata URL and scope of the upstream's own 401 first, then the
        // well-known URLs.
        auto challenge = co_await challenge_of(url);
        auto urls = oauth::resource_metadata_urls(url);
        if (oauth::is_http_url(challenge.resource_metadata))
            urls.insert(urls.begin(), challenge.resource_metadata);
        auto prm = co_await first_document(ex_, urls, [&](std::string_view body) {
            return oauth::read_resource_metadata(body, url);
        });
        if (auto* why = std::get_if<std::string>(&prm))
            co_return "the protected resource metadata of upstream " + u.id +
                " could not be read: " + *why;
        auto& read = std::get<0>(prm);
        if (auto* why = std::get_if<std::string>(&read))
            co_return "upstream " + u.id + ": " + *why;
        auto& m = std::get<oauth::resource_metadata>(read);
        issuer = m.authorization_servers.front();
        t.resource = a.resource.value_or(m.resource);
        // MCP's scope selection, when none is configured: the challenge's, else the
        // resource's own.
        if (a.scopes.empty())
            t.scope = oauth::is_scope_list(challenge.scope)
                          ? challenge.scope
                          : oauth::scope_param(m.scopes_supported);
    }
    auto asm_ = co_await first_document(
        ex_, oauth::server_metadata_urls(issuer),
        [&](std::string_view body) { return oauth::read_server_metadata(body, issuer); });
    if (auto* why = std::get_if<std::string>(&asm_))
        co_return "the authorization server " + issuer + " of upstream " + u.id +
            " could not be reached: " + *why;
    auto& read = std::get<0>(asm_);
    if (auto* why = std::get_if<std::string>(&read))
        co_return "the authorization server " + issuer + " of upstream " + u.id + ": " + *why;
    auto& m = std::get<oauth::server_metadata>(read);
    t.issuer = m.issuer;
    t.iss_required = m.iss_parameter_supported;
    t.authorization_endpoint = m.authorization_endpoint;
    t.token_endpoint = m.token_endpoint;
    t.revocation_endpoint = m.revocation_endpoint;
    auto client = co_await client_at(u, m);
    if (auto* why = std::get_if<std::string>(&client))
        co_return std::move(*why);
    t.client = std::move(std::get<oauth::client_identity>(client));
    co_return t;
}

asio::awaitable<std::variant<oauth::client_identity, std::string>>
user_accounts::client_at(const config::upstream& u, const oauth::server_metadata& m) {
    const auto& a = u.auth;
    if (!a.client_id.empty()) {
        if (!a.client_auth_)
            co_return oauth::client_identity{a.client_id, "", "none"};
        const char* secret = std::getenv(a.client_auth_->secret_ref.c_str());
        co_return oauth::client_identity{a.client_id, secret ? secret : "", a.client_auth_->type};
    }
    // MCP's order: a client ID metadata document where the server takes them, else
    // registration.
    if (m.client_id_metadata_document_supported && !client_metadata_url_.empty())
        co_return oauth::client_identity{client_metadata_url_, "", "none"};
    if (m.registration_endpoint.empty())
        co_return "the authorization server " + m.issuer + " of upstream " + u.id +
            " offers no dynamic client registration; configure auth.clientId";
    auto client = co_await registered_client(m.registration_endpoint, m.issuer);
    if (auto* why = std::get_if<std::string>(&client))
        co_return "registering gate at the authorization server " + m.issuer + " of upstream " +
            u.id + " failed: " + *why;
    co_return std::move(client);
}

asio::awaitable<std::variant<oauth::client_identity, std::string>>
user_accounts::registered_client(const std::string& endpoint, const std::string& issuer) {
    auto key = issuer + '\n' + redirect_uri();
    if (auto it = registrations_.find(key); it != registrations_.end())
        co_return it->second;
    // RFC 7591: a public client using PKCE, with gate's redirect URI only; a web application
    // (OpenID Dynamic Client Registration's application_type, which MCP 2026-07-28 asks
    // clients to send): its redirect URI is gate's public URL, reached by a browser.
    json::object meta{{"client_name", "gate"},
                      {"application_type", "web"},
                      {"redirect_uris", json::array{json::value(redirect_uri())}},
                      {"grant_types", json::array{"authorization_code", "refresh_token"}},
                      {"response_types", json::array{"code"}},
                      {"token_endpoint_auth_method", "none"}};
    auto req = json_get(endpoint);
    req.method = "POST";
    req.content_type = "application/json";
    req.body = json::serialize(meta);
    auto got = co_await transport::http_fetch(ex_, std::move(req));
    if (auto* e = std::get_if<std::string>(&got))
        co_return *e;
    auto& a = std::get<transport::fetch_answer>(got);
    boost::system::error_code ec;
    auto doc = json::parse(a.body, ec);
    const auto* o = !ec && doc.is_object() ? &doc.get_object() : nullptr;
    if (a.status != 201 && a.status != 200) {
        // RFC 7591 section 3.2.2: its error and description, when readable, say what to fix.
        auto error = oauth::read_token_answer(a.status, a.body);
        std::string why = std::get<oauth::token_refusal>(error).why;
        const auto* d = o ? o->if_contains("error_description") : nullptr;
        if (d && d->is_string() && d->get_string().size() <= 200 &&
            oauth::header_safe(d->get_string()))
            why += ": " + std::string(d->get_string());
        co_return "the registration endpoint refused: " + why;
    }
    const auto* id = o ? o->if_contains("client_id") : nullptr;
    if (!id || !id->is_string() || id->get_string().empty() ||
        !oauth::header_safe(id->get_string()))
        co_return std::string("the registration endpoint's answer has no usable client_id");
    oauth::client_identity c{std::string(id->get_string()), "", "none"};
    if (const auto* s = o->if_contains("client_secret"); s && s->is_string()) {
        c.secret = std::string(s->get_string());
        c.method = "client_secret_basic";
        if (const auto* m = o->if_contains("token_endpoint_auth_method");
            m && m->is_string() && m->get_string() == "client_secret_post")
            c.method = "client_secret_post";
    }
    registrations_[key] = c;
    co_return c;
}

} // namespace gate::gateway::accounts
