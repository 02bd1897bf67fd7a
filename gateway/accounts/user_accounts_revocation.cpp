// Revoking a grant where it was issued (RFC 7009): a connection a user disconnects or an
// operator revokes is not only forgotten by gate; its refresh token (else its access token)
// is sent to the authorization server's revocation endpoint, as the client it was issued to,
// so the grant cannot be used by anyone who copied it. Best effort and bounded: one request at
// a time, at most revocation_bound waiting, each failure audited with its reason. A server
// that advertises no revocation endpoint revokes nothing; the grant ends at its own expiry.
#include "gateway/accounts/oauth_requests.hpp"
#include "gateway/accounts/user_accounts.hpp"
#include "protocol/oauth/token_answer.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway::accounts {

namespace asio = boost::asio;
namespace oauth = protocol::oauth;

namespace {

constexpr std::size_t revocation_bound = 10'000;

} // namespace

void user_accounts::revoke_grants(std::vector<forgotten_tokens> taken) {
    for (auto& f : taken) {
        if (revoking_.size() >= revocation_bound) {
            told("grantRevokeFailed", f.upstream, f.principal,
                 "too many revocations waiting (" + std::to_string(revocation_bound) +
                     "): forgotten by gate, left to expire at the authorization server");
            continue;
        }
        revoking_.push_back(std::move(f));
    }
    if (revoking_.empty() || revoking_busy_)
        return;
    revoking_busy_ = true;
    asio::co_spawn(ex_, drain_revocations(), asio::detached);
}

asio::awaitable<void> user_accounts::drain_revocations() {
    while (!revoking_.empty()) {
        auto next = std::move(revoking_.front());
        revoking_.pop_front();
        co_await revoke_grant(next);
    }
    revoking_busy_ = false;
}

asio::awaitable<void> user_accounts::revoke_grant(const forgotten_tokens& f) {
    auto u = upstreams_.find(f.upstream);
    if (u == upstreams_.end())
        co_return; // removed by a reload meanwhile: which server issued it is no longer known
    auto target = co_await target_for(u->second);
    if (auto* why = std::get_if<std::string>(&target)) {
        told("grantRevokeFailed", f.upstream, f.principal, *why);
        co_return;
    }
    const auto& t = std::get<login_target>(target);
    if (t.revocation_endpoint.empty())
        co_return;
    const auto& tokens = f.tokens;
    bool refreshable = !tokens.refresh_token.empty();
    // RFC 7009 section 2.1: revoking the refresh token invalidates the grant's access tokens
    // where the server supports that; without one, the access token is what there is.
    oauth::token_form form;
    form.add("token", refreshable ? tokens.refresh_token : tokens.access_token)
        .add("token_type_hint", refreshable ? "refresh_token" : "access_token");
    form.authenticate(tokens.client.id.empty() ? t.client : tokens.client);
    auto got =
        co_await transport::http_fetch(ex_, form_post(t.revocation_endpoint, std::move(form)));
    std::string why;
    if (auto* e = std::get_if<std::string>(&got)) {
        why = std::move(*e);
    } else if (auto& a = std::get<transport::fetch_answer>(got); a.status != 200) {
        // Its error code where it gave a readable one (unsupported_token_type, ...).
        auto refusal = std::get<oauth::token_refusal>(oauth::read_token_answer(a.status, a.body));
        why = "answered HTTP " + std::to_string(a.status) +
              (refusal.error.empty() ? "" : " (" + refusal.error + ")");
    } else {
        told("grantRevoked", f.upstream, f.principal);
        co_return;
    }
    why = "the revocation endpoint " + t.revocation_endpoint + ": " + why;
    spdlog::warn("revoking a user's grant at upstream {}: {}", f.upstream, why);
    told("grantRevokeFailed", f.upstream, f.principal, std::move(why));
}

} // namespace gate::gateway::accounts
