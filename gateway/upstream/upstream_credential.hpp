// The credential gate attaches to every request it sends one upstream (spec: Upstream
// credential strategies): `static` (a secret from the environment in a header),
// `client-credentials` (an OAuth token from the upstream's token endpoint, cached until 60 s
// before it expires, one fetch in flight) and `token-exchange` (RFC 8693: the caller's token
// exchanged for one with the upstream's audience, cached the same way per issuer and subject).
// `passthrough` needs no state: the caller's own token goes as it came. The header goes only
// to the upstream's configured endpoints: gate follows no redirect, so nothing carries it
// elsewhere. Secrets and tokens never appear in errors or logs. The clients of one upstream
// entry on several io threads ask the first's source rather than the token endpoint
// (docs/io-threads.md), so the process fetches each token once.
#pragma once

#include "config/model.hpp"
#include "transport/io/ask_flight.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace gate::transport {
struct fetch_request;
}

namespace gate::gateway {

// What is missing from the environment for `doc`'s credentials: one text per variable, naming
// the field (`/upstreams/0/auth/secretRef`). gate refuses to start or reload on any.
std::vector<std::string> missing_secrets(const config::document& doc,
                                         const std::function<const char*(const char*)>& getenv);

// The verified caller a per-caller upstream (passthrough, token-exchange) acts for.
struct caller_credential {
    std::string token; // the bearer token as the caller presented it
    std::string issuer, subject;
    // The key a principal's state is kept under ("issuer\nsubject", as principal_key).
    std::string principal() const { return issuer + '\n' + subject; }
    bool same_principal(const caller_credential& o) const {
        return issuer == o.issuer && subject == o.subject;
    }
};

// Whether the upstream's credential is derived from each caller's own token.
inline bool per_caller(const config::upstream_auth& a) {
    return a.per_caller();
}

// Why no credential could be had (its token endpoint failed), naming the upstream.
struct credential_failure {
    std::string text;
    // user-account: the caller has no usable token at the upstream; a login is the way on.
    bool needs_login = false;
};

class upstream_credential {
public:
    using clock = std::chrono::steady_clock;
    static constexpr auto refresh_before_expiry = std::chrono::seconds(60);
    static constexpr auto default_lifetime = std::chrono::seconds(60); // no expires_in
    static constexpr auto failure_pause = std::chrono::seconds(1);
    static constexpr auto fetch_timeout = std::chrono::seconds(5);
    static constexpr std::size_t max_exchanged = 10'000; // token-exchange: principals cached

    // Null for strategies `none` and `passthrough`.
    static std::shared_ptr<upstream_credential> make(boost::asio::any_io_executor ex,
                                                     const config::upstream& u);

    // The header to send ("Authorization: Bearer ...", no line end), or why there is none (the
    // token endpoint failed), naming the upstream.
    // token-exchange: the token exchanged for `caller`'s.
    boost::asio::awaitable<std::variant<std::string, credential_failure>> header_line();
    boost::asio::awaitable<std::variant<std::string, credential_failure>>
    header_line(const caller_credential& caller);

    std::uint64_t token_fetches() const { return fetches_; }

    // From now on a token not in hand here is asked of `keeper` (the same entry's source on
    // another io thread, run by `there`), which fetches it when due, and kept here until the
    // keeper refreshes it.
    void ask_through(std::shared_ptr<upstream_credential> keeper,
                     boost::asio::any_io_executor there) {
        keeper_ = std::move(keeper);
        keeper_ex_ = std::move(there);
    }

private:
    // One token from the token endpoint: the service identity's, or one principal's exchanged.
    struct token_slot {
        std::optional<std::string> line;
        clock::time_point refresh_at{};
        std::optional<std::pair<clock::time_point, std::string>> last_failure;
        transport::ask_flight flight;
    };
    upstream_credential(boost::asio::any_io_executor ex, const config::upstream& u);
    boost::asio::awaitable<std::variant<std::string, credential_failure>>
    from_slot(std::shared_ptr<token_slot> slot, const caller_credential* caller);
    boost::asio::awaitable<void> fetch_token(token_slot& slot, const caller_credential* caller);
    boost::asio::awaitable<void> take_from_keeper(token_slot& slot,
                                                  const caller_credential* caller);
    // The token request: client credentials, or (`caller`) an exchange of the caller's token.
    transport::fetch_request token_request(const caller_credential* caller) const;
    std::shared_ptr<token_slot> exchanged_slot(const caller_credential& caller);

    boost::asio::any_io_executor ex_;
    std::string upstream_id_;
    config::upstream_auth cfg_;
    std::string static_line_;   // static: the whole header line
    std::string client_secret_; // client-credentials, token-exchange
    std::shared_ptr<token_slot> service_ = std::make_shared<token_slot>();
    std::unordered_map<std::string, std::shared_ptr<token_slot>> exchanged_; // issuer\nsubject
    std::uint64_t fetches_ = 0;
    std::shared_ptr<upstream_credential> keeper_; // on keeper_ex_'s thread
    boost::asio::any_io_executor keeper_ex_;
};

} // namespace gate::gateway
