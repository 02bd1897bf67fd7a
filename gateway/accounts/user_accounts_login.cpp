// A login from its offer to the waiting call woken: the connect page, the redirect to the
// authorization server, and the callback (user_accounts.hpp).
#include "gateway/accounts/http_query.hpp"
#include "gateway/accounts/login_pages.hpp"
#include "gateway/accounts/user_accounts.hpp"
#include "protocol/oauth/metadata.hpp"
#include "protocol/oauth/pkce.hpp"
#include "protocol/oauth/token_answer.hpp"
#include "protocol/random_id.hpp"
#include "protocol/secret_compare.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway::accounts {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace oauth = protocol::oauth;
using steady_clock = std::chrono::steady_clock;

namespace {

std::optional<std::string> cookie_value(const transport::http_request& req, std::string_view name) {
    for (const auto& field : req) {
        if (field.name() != http::field::cookie)
            continue;
        std::string_view v(field.value().data(), field.value().size());
        while (!v.empty()) {
            auto end = v.find(';');
            auto pair = v.substr(0, end);
            while (!pair.empty() && pair.front() == ' ')
                pair.remove_prefix(1);
            if (pair.size() > name.size() && pair.starts_with(name) && pair[name.size()] == '=')
                return std::string(pair.substr(name.size() + 1));
            if (end == std::string_view::npos)
                break;
            v.remove_prefix(end + 1);
        }
    }
    return std::nullopt;
}

std::string cookie_name(std::string_view login_id) {
    return "gate_login_" + std::string(login_id);
}

transport::http_reply link_unusable() {
    return outcome_page(http::status::not_found, "This link cannot be used",
                        "The login it belongs to has finished, expired or never existed. Go back "
                        "to your MCP client and call the tool again for a new link.");
}

bool random_hex(std::string_view s) {
    return s.size() == 32 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

} // namespace

asio::awaitable<std::variant<login_offer, std::string>>
user_accounts::offer_login(const config::upstream& u, const caller_credential& caller,
                           std::string request_id, std::string extra_scope) {
    if (public_url_.empty())
        co_return std::string("server.publicUrl is not set");
    auto principal = caller.principal();
    auto now = steady_clock::now();
    if (!oauth::is_scope_list(extra_scope))
        extra_scope.clear(); // an upstream's challenge is believed only when it is scopes
    auto* open = logins_.joinable(principal, u.id, now);
    if (!open || (!extra_scope.empty() &&
                  oauth::scope_union(open->target.scope, extra_scope) != open->target.scope)) {
        auto target = co_await target_for(u);
        if (auto* why = std::get_if<std::string>(&target))
            co_return std::move(*why);
        pending_login login;
        login.id = protocol::random_id();
        login.principal = principal;
        login.subject = caller.subject;
        login.upstream = u.id;
        login.request = std::move(request_id);
        login.target = std::move(std::get<login_target>(target));
        login.target.redirect_uri = redirect_uri();
        if (!extra_scope.empty()) {
            // Step-up: what the upstream asked for, beside the configured scopes and those the
            // user's token holds now (a new grant replaces it: nothing held is lost).
            auto held = vault_.find(u.id, principal, wall_clock::now());
            login.target.scope = oauth::scope_union(
                oauth::scope_union(login.target.scope, held.tokens ? held.tokens->scope : ""),
                extra_scope);
        }
        open = &logins_.open(std::move(login), steady_clock::now());
        told("loginStarted", u.id, principal);
    }
    co_return login_offer{open->id, public_url_ + std::string(connect_path) + "?login=" + open->id,
                          "Connect your account at " + u.id +
                              " to continue: open the link, "
                              "sign in there and approve gate's access."};
}

asio::awaitable<bool> user_accounts::finished(const std::string& id, steady_clock::duration bound) {
    // A login can end before its call waits for it (a client that answers the elicitation only
    // once the user is back): its outcome is kept for as long as a link lives.
    if (auto ended = ended_.find(id); ended != ended_.end())
        co_return ended->second.connected;
    bool connected = false;
    auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor, bound);
    auto it = waiters_.emplace(id, waiter{timer, &connected});
    boost::system::error_code ec; // cancellation is the wake-up
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (!ec) // timed out: still listed
        waiters_.erase(it);
    co_return connected;
}

void user_accounts::wake(const std::string& id, bool connected) {
    auto now = steady_clock::now();
    std::erase_if(ended_, [&](const auto& e) { return now - e.second.at > login_table::lifetime; });
    if (ended_.size() >= login_table::capacity)
        ended_.erase(std::min_element(ended_.begin(), ended_.end(),
                                      [](auto& a, auto& b) { return a.second.at < b.second.at; }));
    ended_.insert_or_assign(id, ended_login{connected, now});
    auto [first, last] = waiters_.equal_range(id);
    for (auto it = first; it != last; ++it) {
        *it->second.connected = connected;
        it->second.timer->cancel();
    }
    waiters_.erase(first, last);
}

asio::awaitable<transport::http_reply> user_accounts::connect(const transport::http_request& req) {
    bool post = req.method() == http::verb::post;
    auto id = query_value(post ? std::string_view(req.body()) : query_of(req), "login");
    auto* login = id && random_hex(*id) ? logins_.by_id(*id, steady_clock::now()) : nullptr;
    if (!login)
        co_return link_unusable();
    if (!post)
        co_return connect_page(login->upstream, login->subject, login->id, connect_path);
    // A form posted from another site is refused by stage 1 (its Origin); one the browser
    // marks cross-site is refused here too.
    if (auto site = req.find("Sec-Fetch-Site");
        site != req.end() && site->value() != "same-origin" && site->value() != "none")
        co_return outcome_page(http::status::forbidden, "Refused",
                               "The connect form must be sent from gate's own page.");
    auto pkce = oauth::make_pkce();
    auto state = protocol::random_id();
    auto browser = protocol::random_id();
    logins_.arrived(*login, state, pkce.verifier, browser);
    const auto& t = login->target;
    auto url =
        oauth::authorization_url(t.authorization_endpoint, {t.client.id, t.redirect_uri, t.scope,
                                                            state, pkce.challenge, t.resource});
    auto reply = transport::http_reply::empty(http::status::found);
    reply.headers.emplace_back("Location", std::move(url));
    auto cookie = cookie_name(login->id) + "=" + browser + "; Path=" + std::string(callback_path) +
                  "; Max-Age=600; HttpOnly; SameSite=Lax";
    if (public_url_.starts_with("https://"))
        cookie += "; Secure";
    reply.headers.emplace_back("Set-Cookie", std::move(cookie));
    reply.headers.emplace_back("Cache-Control", "no-store");
    reply.headers.emplace_back("Referrer-Policy", "no-referrer");
    co_return reply;
}

asio::awaitable<transport::http_reply> user_accounts::callback(const transport::http_request& req) {
    auto q = query_of(req);
    auto state = query_value(q, "state");
    auto login = state && random_hex(*state) ? logins_.take_by_state(*state, steady_clock::now())
                                             : std::nullopt;
    if (!login)
        co_return link_unusable(); // replayed, foreign, expired or made up: one use only
    auto fail = [&](std::string why) {
        told("loginFailed", login->upstream, login->principal, why);
        spdlog::info("a login at upstream {} failed: {}", login->upstream, why);
        wake(login->id, false);
        return outcome_page(http::status::bad_request, "Not connected", why);
    };
    auto cookie = cookie_value(req, cookie_name(login->id));
    if (!cookie || !protocol::secrets_equal(*cookie, login->browser))
        co_return fail("This login was started in another browser. Open the link your MCP client "
                       "showed in this browser.");
    // RFC 9207: the response names the server that issued it; a mix-up is refused.
    auto iss = query_value(q, "iss");
    if ((iss && *iss != login->target.issuer) || (!iss && login->target.iss_required))
        co_return fail("The answer did not come from the authorization server this login was "
                       "sent to.");
    if (auto error = query_value(q, "error")) {
        bool plain = error->size() <= 64 &&
                     error->find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos;
        co_return fail("The authorization server did not grant access (" +
                       (plain ? *error : std::string("an error")) + ").");
    }
    auto code = query_value(q, "code");
    if (!code || code->empty())
        co_return fail("The authorization server's answer has no code.");
    co_return co_await redeem(std::move(*login), std::move(*code));
}

asio::awaitable<transport::http_reply> user_accounts::redeem(pending_login login,
                                                             std::string code) {
    const auto& t = login.target;
    oauth::token_form form;
    form.add("grant_type", "authorization_code")
        .add("code", code)
        .add("redirect_uri", t.redirect_uri)
        .add("code_verifier", login.verifier);
    auto read = co_await ask_token(t, std::move(form));
    if (auto* issued = std::get_if<oauth::issued_token>(&read)) {
        auto now = wall_clock::now();
        keep(login.upstream, login.principal,
             {issued->access_token, issued->refresh_token,
              issued->expires_in ? now + *issued->expires_in : wall_clock::time_point::max(),
              issued->scope.value_or(t.scope), now, t.client});
        told("connected", login.upstream, login.principal);
        spdlog::info("a user connected an account at upstream {}", login.upstream);
        wake(login.id, true);
        co_return outcome_page(http::status::ok, "Connected",
                               "Your account at " + login.upstream +
                                   " is connected. You can close this window and go back to "
                                   "your MCP client.");
    }
    auto why = std::get<oauth::token_refusal>(read).why;
    told("loginFailed", login.upstream, login.principal, why);
    spdlog::info("a login at upstream {} failed at the token endpoint {}: {}", login.upstream,
                 t.token_endpoint, why);
    wake(login.id, false);
    co_return outcome_page(http::status::bad_gateway, "Not connected",
                           "The authorization server of " + login.upstream +
                               " did not redeem the login (" + why +
                               "). Go back to your MCP client and try again.");
}

} // namespace gate::gateway::accounts
