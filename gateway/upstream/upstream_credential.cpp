#include "gateway/upstream/upstream_credential.hpp"

#include "protocol/jose/es256_signer.hpp"
#include "protocol/oauth/token_answer.hpp"
#include "protocol/oauth/token_form.hpp"
#include "protocol/sealed_box.hpp"
#include "transport/client/http_fetch.hpp"
#include "transport/io/answered_on.hpp"

#include <cstdlib>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

const char* env(const std::string& name) {
    return name.empty() ? nullptr : std::getenv(name.c_str());
}

bool header_safe(std::string_view s) {
    return s.find_first_of("\r\n") == std::string_view::npos;
}

} // namespace

std::vector<std::string> missing_secrets(const config::document& doc,
                                         const std::function<const char*(const char*)>& getenv) {
    std::vector<std::string> out;
    auto check = [&](std::size_t i, const std::string& var, std::string_view field) {
        const char* v = var.empty() ? nullptr : getenv(var.c_str());
        auto where = "/upstreams/" + std::to_string(i) + "/auth/" + std::string(field);
        if (!v || !*v)
            out.push_back(where + ": the environment variable " + var +
                          " is not set (it holds the upstream's secret)");
        else if (!header_safe(v))
            out.push_back(where + ": the environment variable " + var +
                          " holds a line break, which cannot go in an HTTP header");
    };
    if (const auto& ema = doc.auth.ema) {
        const char* pem = getenv(ema->signing_key_ref.c_str());
        if (!pem || !*pem) {
            out.push_back("/auth/ema/signingKeyRef: the environment variable " +
                          ema->signing_key_ref +
                          " is not set (it holds the gateway's ES256 signing key)");
        } else if (auto key = protocol::jose::es256_signer::from_pem(pem);
                   auto* why = std::get_if<std::string>(&key)) {
            out.push_back("/auth/ema/signingKeyRef: the environment variable " +
                          ema->signing_key_ref + " holds " + *why);
        }
    }
    if (const auto& in = doc.auth.introspection) {
        const char* v = getenv(in->auth.secret_ref.c_str());
        if (!v || !*v)
            out.push_back("/auth/introspection/clientAuth/secretRef: the environment variable " +
                          in->auth.secret_ref +
                          " is not set (it holds gate's secret at the introspection endpoint)");
    }
    if (doc.discovery && doc.discovery->bearer_secret_ref) {
        const auto& var = *doc.discovery->bearer_secret_ref;
        const char* v = getenv(var.c_str());
        if (!v || !*v)
            out.push_back("/discovery/bearerSecretRef: the environment variable " + var +
                          " is not set (it holds the discovery source's bearer token)");
        else if (!header_safe(v))
            out.push_back("/discovery/bearerSecretRef: the environment variable " + var +
                          " holds a line break, which cannot go in an HTTP header");
    }
    if (doc.policy && doc.policy->decision_hook && doc.policy->decision_hook->bearer_secret_ref) {
        const auto& var = *doc.policy->decision_hook->bearer_secret_ref;
        const char* v = getenv(var.c_str());
        if (!v || !*v)
            out.push_back("/policy/decisionHook/bearerSecretRef: the environment variable " + var +
                          " is not set (it holds the decision hook's bearer token)");
        else if (!header_safe(v))
            out.push_back("/policy/decisionHook/bearerSecretRef: the environment variable " + var +
                          " holds a line break, which cannot go in an HTTP header");
    }
    auto key = [&](const std::optional<std::string>& var, std::string_view field) {
        if (!var)
            return;
        const char* v = getenv(var->c_str());
        auto where = "/server/vault/" + std::string(field) + ": the environment variable " + *var;
        if (!v || !*v)
            out.push_back(where + " is not set (it holds the key users' tokens are sealed with)");
        else if (auto read = protocol::read_sealing_key(v);
                 auto* why = std::get_if<std::string>(&read))
            out.push_back(where + " " + *why);
    };
    key(doc.server.vault_key_ref, "keyRef");
    key(doc.server.vault_previous_key_ref, "previousKeyRef");
    for (std::size_t i = 0; i < doc.upstreams.size(); ++i) {
        const auto& a = doc.upstreams[i].auth;
        if (a.strategy == "static")
            check(i, a.secret_ref, "secretRef");
        else if ((a.strategy == "client-credentials" || a.strategy == "token-exchange" ||
                  a.strategy == "user-account") &&
                 a.client_auth_)
            check(i, a.client_auth_->secret_ref, "clientAuth/secretRef");
    }
    return out;
}

std::shared_ptr<upstream_credential> upstream_credential::make(asio::any_io_executor ex,
                                                               const config::upstream& u) {
    const auto& s = u.auth.strategy;
    if (s != "static" && s != "client-credentials" && s != "token-exchange")
        return nullptr;
    return std::shared_ptr<upstream_credential>(new upstream_credential(std::move(ex), u));
}

upstream_credential::upstream_credential(asio::any_io_executor ex, const config::upstream& u)
    : ex_(std::move(ex)), upstream_id_(u.id), cfg_(u.auth) {
    if (cfg_.strategy == "static") {
        const char* secret = env(cfg_.secret_ref);
        std::string value = secret ? secret : "";
        auto scheme = cfg_.scheme.value_or(cfg_.header == "Authorization" ? "Bearer" : "");
        static_line_ = cfg_.header + ": " + (scheme.empty() ? value : scheme + " " + value);
    } else if (cfg_.client_auth_) {
        const char* secret = env(cfg_.client_auth_->secret_ref);
        client_secret_ = secret ? secret : "";
    }
}

asio::awaitable<std::variant<std::string, credential_failure>> upstream_credential::header_line() {
    if (cfg_.strategy == "static")
        co_return static_line_;
    co_return co_await from_slot(service_, nullptr);
}

asio::awaitable<std::variant<std::string, credential_failure>>
upstream_credential::header_line(const caller_credential& caller) {
    if (cfg_.strategy != "token-exchange")
        co_return co_await header_line();
    co_return co_await from_slot(exchanged_slot(caller), &caller);
}

std::shared_ptr<upstream_credential::token_slot>
upstream_credential::exchanged_slot(const caller_credential& caller) {
    auto key = caller.issuer + '\n' + caller.subject;
    if (auto it = exchanged_.find(key); it != exchanged_.end())
        return it->second;
    if (exchanged_.size() >= max_exchanged) {
        // Bounded: the tokens due for refresh go first, then any (a waiter keeps its own).
        auto now = clock::now();
        std::erase_if(exchanged_, [&](const auto& e) { return e.second->refresh_at <= now; });
        if (exchanged_.size() >= max_exchanged)
            exchanged_.erase(exchanged_.begin());
    }
    return exchanged_.emplace(std::move(key), std::make_shared<token_slot>()).first->second;
}

asio::awaitable<std::variant<std::string, credential_failure>>
upstream_credential::from_slot(std::shared_ptr<token_slot> slot, const caller_credential* caller) {
    for (;;) {
        auto now = clock::now();
        if (slot->line && now < slot->refresh_at)
            co_return *slot->line;
        if (slot->last_failure && now - slot->last_failure->first < failure_pause)
            co_return credential_failure{slot->last_failure->second};
        // One fetch at a time; calls arriving meanwhile wait for it and decide again.
        if (co_await slot->flight.run_or_wait([&] { return fetch_token(*slot, caller); })) {
            if (slot->line && !slot->last_failure) // just fetched: used even if short-lived
                co_return *slot->line;
            co_return credential_failure{slot->last_failure ? slot->last_failure->second
                                                            : "no token"};
        }
    }
}

transport::fetch_request upstream_credential::token_request(const caller_credential* caller) const {
    transport::fetch_request req;
    req.url = cfg_.token_endpoint;
    req.method = "POST";
    req.content_type = "application/x-www-form-urlencoded";
    req.timeout = fetch_timeout;
    req.max_body = 64 * 1024;
    protocol::oauth::token_form form;
    if (caller) {
        // RFC 8693 section 2.1: the caller's access token for one with the upstream's audience.
        form.add("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange")
            .add("subject_token", caller->token)
            .add("subject_token_type", "urn:ietf:params:oauth:token-type:access_token")
            .add("audience", cfg_.audience);
    } else {
        form.add("grant_type", "client_credentials");
    }
    form.authenticate({cfg_.client_id, client_secret_,
                       cfg_.client_auth_ ? cfg_.client_auth_->type : "client_secret_post"});
    if (!cfg_.scopes.empty())
        form.add("scope", protocol::oauth::scope_param(cfg_.scopes));
    if (cfg_.resource)
        form.add("resource", *cfg_.resource);
    req.body = std::move(form.body);
    req.headers = std::move(form.headers);
    return req;
}

asio::awaitable<void> upstream_credential::take_from_keeper(token_slot& slot,
                                                            const caller_credential* caller) {
    struct kept {
        std::variant<std::string, credential_failure> line;
        clock::time_point refresh_at{};
    };
    std::optional<caller_credential> whose;
    if (caller)
        whose = *caller;
    auto got = co_await transport::answered_on<kept>(
        keeper_ex_,
        [keeper = keeper_, whose = std::move(whose)]() -> asio::awaitable<kept> {
            auto from = whose ? keeper->exchanged_slot(*whose) : keeper->service_;
            auto line = co_await keeper->from_slot(from, whose ? &*whose : nullptr);
            co_return kept{std::move(line), from->refresh_at};
        },
        kept{credential_failure{"the io thread that keeps it could not answer"}, {}});
    // The keeper said what went wrong (once); here it is only remembered for failure_pause.
    if (auto* failed = std::get_if<credential_failure>(&got.line)) {
        slot.last_failure = {clock::now(), std::move(failed->text)};
        co_return;
    }
    slot.line = std::move(std::get<std::string>(got.line));
    slot.refresh_at = std::max(got.refresh_at, clock::now()); // a short-lived one: used once
    slot.last_failure.reset();
}

asio::awaitable<void> upstream_credential::fetch_token(token_slot& slot,
                                                       const caller_credential* caller) {
    if (keeper_) {
        co_await take_from_keeper(slot, caller);
        co_return;
    }
    ++fetches_;
    auto answer = co_await http_fetch(ex_, token_request(caller));
    std::string error;
    if (auto* e = std::get_if<std::string>(&answer)) {
        error = *e;
    } else {
        const auto& got = std::get<transport::fetch_answer>(answer);
        auto read = protocol::oauth::read_token_answer(got.status, got.body);
        if (auto* refused = std::get_if<protocol::oauth::token_refusal>(&read)) {
            error = std::move(refused->why);
        } else {
            auto& issued = std::get<protocol::oauth::issued_token>(read);
            // Refreshed 60 s before it expires; a shorter-lived token is used once.
            auto now = clock::now();
            auto lifetime = std::chrono::duration_cast<clock::duration>(
                issued.expires_in.value_or(default_lifetime));
            slot.refresh_at = now + lifetime - refresh_before_expiry;
            slot.line = "Authorization: Bearer " + issued.access_token;
            slot.last_failure.reset();
            if (slot.refresh_at <= now)
                slot.refresh_at = now; // valid for the calls waiting on this fetch only
            co_return;
        }
    }
    auto text = "the token endpoint of upstream " + upstream_id_ +
                (caller ? " refused to exchange the caller's token: " : " failed: ") + error;
    // One caller's refused exchange is that caller's business (the audit has it), not news for
    // the operator: a flood of bad tokens must not become a flood of warnings.
    if (caller)
        spdlog::debug("{}", text);
    else if (!slot.last_failure)
        spdlog::warn("{}", text);
    slot.last_failure = {clock::now(), std::move(text)};
}

} // namespace gate::gateway
