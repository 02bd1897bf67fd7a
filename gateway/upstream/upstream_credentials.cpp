// The credential header each request to an upstream carries: none, gate's own (a static
// secret, a client-credentials token), or the caller's (passthrough, token-exchange).
#include "gateway/upstream/upstream_credentials.hpp"

#include "gateway/upstream/upstream_client_parts.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "gateway/upstream/user_tokens.hpp"

namespace gate::gateway {

namespace asio = boost::asio;
using namespace upstream::parts;

upstream_credentials::upstream_credentials(asio::any_io_executor ex, const config::upstream& cfg)
    : cfg_(cfg), per_caller_(gateway::per_caller(cfg.auth)),
      user_account_(cfg.auth.strategy == "user-account"),
      source_(upstream_credential::make(std::move(ex), cfg)) {}

void upstream_credentials::share_among(upstream_siblings& siblings, asio::any_io_executor ex) {
    if (!source_)
        return;
    auto [keeper, there] = siblings.credential_keeper(source_, std::move(ex));
    if (keeper != source_)
        source_->ask_through(std::move(keeper), std::move(there));
}

void upstream_credentials::token_refused(const caller_credential& caller, std::string_view line) {
    if (user_account_ && accounts_)
        accounts_->refused(cfg_, caller, line);
}

std::optional<std::variant<std::string, upstream_failure>>
upstream_credentials::line_now(const caller_credential* caller) const {
    if (!per_caller_)
        caller = nullptr;
    if (per_caller_ && !caller)
        return std::string(); // gate's own traffic: the upstream answers 401, not at fault
    if (user_account_) {
        if (auto line = accounts_ ? accounts_->line_now(cfg_, *caller) : std::nullopt)
            return std::move(*line);
        return std::nullopt;
    }
    if (caller && !source_) // passthrough: the caller's token as it came
        return "Authorization: Bearer " + caller->token;
    if (!source_)
        return std::string();
    return std::nullopt;
}

asio::awaitable<std::variant<std::string, upstream_failure>>
upstream_credentials::line(const caller_credential* caller) {
    if (auto known = line_now(caller))
        co_return std::move(*known);
    if (!per_caller_)
        caller = nullptr;
    std::variant<std::string, credential_failure> got;
    if (user_account_)
        got = accounts_ ? co_await accounts_->line(cfg_, *caller)
                        : credential_failure{"no account is connected", true};
    else
        got = caller ? co_await source_->header_line(*caller) : co_await source_->header_line();
    if (auto* failed = std::get_if<credential_failure>(&got)) {
        auto f = fail(upstream_failure::kind::connect_error, std::move(failed->text));
        f.needs_login = failed->needs_login;
        f.upstream_at_fault = false; // its token endpoint is, not the upstream
        co_return f;
    }
    co_return std::move(std::get<std::string>(got));
}

} // namespace gate::gateway
