#include "gateway/auth/token_introspection.hpp"

#include "protocol/digest.hpp"
#include "protocol/oauth/introspection_answer.hpp"
#include "protocol/oauth/token_form.hpp"
#include "transport/client/http_fetch.hpp"
#include "transport/io/answered_on.hpp"

#include <cstdlib>
#include <spdlog/spdlog.h>
#include <utility>

namespace gate::gateway {

namespace asio = boost::asio;
namespace oauth = protocol::oauth;

namespace {

constexpr auto fetch_timeout = std::chrono::seconds(5);

auth_refusal token_refused(std::string why) {
    return {"invalid_token", std::move(why)};
}

} // namespace

token_introspection::token_introspection(asio::any_io_executor ex, config::introspection cfg,
                                         std::string resource)
    : ex_(std::move(ex)), cfg_(std::move(cfg)), resource_(std::move(resource)) {
    // Checked at start (missing_secrets): set.
    const char* secret = std::getenv(cfg_.auth.secret_ref.c_str());
    secret_ = secret ? secret : "";
}

std::optional<token_introspection::verdict> token_introspection::known_by(const std::string& digest,
                                                                          std::int64_t now) {
    auto it = answers_.find(digest);
    if (it == answers_.end())
        return std::nullopt;
    if (now >= it->second.until) {
        answers_.erase(it);
        return std::nullopt;
    }
    if (it->second.who)
        return verdict(it->second.who);
    return verdict(token_refused(it->second.why));
}

std::optional<token_introspection::verdict> token_introspection::known(std::string_view token,
                                                                       std::int64_t now) {
    return known_by(protocol::sha256_hex(token, 64), now);
}

void token_introspection::remember(std::string digest, answer a) {
    if (answers_.size() >= max_remembered) // a flood of distinct tokens starts the memory over
        answers_.clear();
    answers_.insert_or_assign(std::move(digest), std::move(a));
}

asio::awaitable<token_introspection::verdict> token_introspection::ask(std::string_view token,
                                                                       std::int64_t now) {
    auto digest = protocol::sha256_hex(token, 64);
    if (auto got = known_by(digest, now))
        co_return std::move(*got);
    if (asking_.size() >= max_in_flight && !asking_.contains(digest)) {
        if (!std::exchange(saturated_, true))
            spdlog::warn("the introspection endpoint {} is asked about {} tokens at once: other "
                         "unknown tokens are refused until one is answered",
                         cfg_.url, max_in_flight);
        co_return token_refused("the introspection endpoint " + cfg_.url + " is asked about " +
                                std::to_string(max_in_flight) +
                                " other tokens at once; try again shortly");
    }
    saturated_ = false;
    auto& flight = asking_[digest];
    if (!flight)
        flight = std::make_shared<transport::ask_flight>();
    auto held = flight;
    std::optional<verdict> mine;
    std::string copy(token); // the request's buffer may not outlive a suspension
    bool flew = co_await held->run_or_wait([&]() -> asio::awaitable<void> {
        mine = keeper_ ? co_await ask_keeper(copy, digest, now)
                       : co_await ask_endpoint(copy, digest, now);
    });
    if (flew)
        asking_.erase(digest);
    if (mine)
        co_return std::move(*mine);
    // Another request asked: its answer, remembered (or, when the endpoint failed, one more try).
    if (auto got = known_by(digest, now))
        co_return std::move(*got);
    co_return token_refused("the introspection endpoint " + cfg_.url + " gave no usable answer");
}

asio::awaitable<token_introspection::verdict>
token_introspection::ask_endpoint(const std::string& token, const std::string& digest,
                                  std::int64_t now) {
    ++questions_;
    oauth::token_form form;
    form.add("token", token).add("token_type_hint", "access_token");
    form.authenticate({cfg_.client_id, secret_, cfg_.auth.type});
    transport::fetch_request req;
    req.url = cfg_.url;
    req.method = "POST";
    req.content_type = "application/x-www-form-urlencoded";
    req.body = std::move(form.body);
    req.headers = std::move(form.headers);
    req.headers.emplace_back("Accept", "application/json");
    req.timeout = fetch_timeout;
    req.max_body = 64 * 1024;
    auto got = co_await transport::http_fetch(ex_, std::move(req));
    if (auto* e = std::get_if<std::string>(&got)) {
        spdlog::warn("the introspection endpoint {} could not be asked: {}", cfg_.url, *e);
        co_return token_refused("the introspection endpoint " + cfg_.url +
                                " could not be asked: " + *e);
    }
    auto& a = std::get<transport::fetch_answer>(got);
    std::optional<std::string_view> issuer;
    if (cfg_.issuer)
        issuer = *cfg_.issuer;
    auto read = oauth::read_introspection(a.status, a.body,
                                          {resource_, issuer, cfg_.url, cfg_.cache_seconds}, now);
    if (auto* no = std::get_if<oauth::introspection_refusal>(&read)) {
        if (no->definite)
            remember(digest, {nullptr, no->why, now + refusal_seconds});
        else
            spdlog::warn("introspecting a token at {}: {}", cfg_.url, no->why);
        co_return token_refused(no->why);
    }
    auto& yes = std::get<oauth::introspected>(read);
    auto who = std::make_shared<const policy::principal>(policy::principal{
        std::move(yes.subject), std::move(yes.issuer), {}, std::move(yes.claims)});
    remember(digest, {who, {}, yes.believed_until});
    co_return verdict(std::move(who));
}

asio::awaitable<token_introspection::verdict>
token_introspection::ask_keeper(const std::string& token, const std::string& digest,
                                std::int64_t now) {
    struct kept {
        verdict said;
        std::int64_t until = 0; // 0: not remembered there (the endpoint failed)
    };
    auto got = co_await transport::answered_on<kept>(
        keeper_ex_,
        [keeper = keeper_, token, digest, now]() -> asio::awaitable<kept> {
            auto said = co_await keeper->ask(token, now);
            auto it = keeper->answers_.find(digest);
            co_return kept{std::move(said), it == keeper->answers_.end() ? 0 : it->second.until};
        },
        kept{token_refused("the io thread that keeps it could not answer"), 0});
    if (got.until > now) {
        auto* who = std::get_if<policy::caller_ref>(&got.said);
        remember(digest,
                 {who ? *who : nullptr,
                  who ? std::string() : std::get<auth_refusal>(got.said).description, got.until});
    }
    co_return std::move(got.said);
}

} // namespace gate::gateway
