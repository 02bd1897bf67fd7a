// The credential gate attaches to every request it sends one upstream (spec: Upstream
// credential strategies), for the strategies that are one service identity per upstream:
// `static` (a secret from the environment in a header) and `client-credentials` (an OAuth
// token from the upstream's token endpoint, cached until 60 s before it expires, one fetch in
// flight). The header goes only to the upstream's configured endpoints: gate follows no
// redirect, so nothing carries it elsewhere. Secrets never appear in errors or logs.
#pragma once

#include "config/model.hpp"
#include "transport/ask_flight.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::transport {

// What is missing from the environment for `doc`'s credentials: one text per variable, naming
// the field (`/upstreams/0/auth/secretRef`). gate refuses to start or reload on any.
std::vector<std::string> missing_secrets(const config::document& doc,
                                         const std::function<const char*(const char*)>& getenv);

// Why no credential could be had (its token endpoint failed), naming the upstream.
struct credential_failure {
    std::string text;
};

class upstream_credential {
public:
    using clock = std::chrono::steady_clock;
    static constexpr auto refresh_before_expiry = std::chrono::seconds(60);
    static constexpr auto default_lifetime = std::chrono::seconds(60); // no expires_in
    static constexpr auto failure_pause = std::chrono::seconds(1);
    static constexpr auto fetch_timeout = std::chrono::seconds(5);

    // Null for strategy `none` (and for the strategies attached per caller).
    static std::shared_ptr<upstream_credential> make(boost::asio::any_io_executor ex,
                                                     const config::upstream& u);

    // The header to send ("Authorization: Bearer ...", no line end), or why there is none (the
    // token endpoint failed), naming the upstream.
    boost::asio::awaitable<std::variant<std::string, credential_failure>> header_line();

    std::uint64_t token_fetches() const { return fetches_; }

private:
    upstream_credential(boost::asio::any_io_executor ex, const config::upstream& u);
    boost::asio::awaitable<void> fetch_token();

    boost::asio::any_io_executor ex_;
    std::string upstream_id_;
    config::upstream_auth cfg_;
    std::string static_line_;   // static: the whole header line
    std::string client_secret_; // client-credentials
    std::optional<std::string> token_line_;
    clock::time_point token_refresh_at_{};
    std::optional<std::pair<clock::time_point, std::string>> last_failure_;
    ask_flight flight_;
    std::uint64_t fetches_ = 0;
};

} // namespace gate::transport
