// Tokens gate cannot read as a JWT (opaque ones), asked about at the RFC 7662 endpoint of
// auth.introspection as a client of it (docs/security.md). An answer is remembered by the
// token's SHA-256, never the token: a principal until the token's `exp` or cacheSeconds,
// whichever comes first; a refusal the endpoint made for at most 10 s (a flood of one bad
// token asks once). One question per token at a time, at most max_in_flight at once. On the io
// thread; on the other io threads it asks the first thread's instead of the endpoint
// (docs/io-threads.md), so the process asks about a token once.
#pragma once

#include "config/model.hpp"
#include "gateway/pipeline/s2_authenticate.hpp"
#include "transport/io/ask_flight.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

namespace gate::gateway {

class token_introspection {
public:
    using verdict = std::variant<policy::caller_ref, auth_refusal>;
    static constexpr std::size_t max_remembered = 10'000;
    static constexpr std::int64_t refusal_seconds = 10;
    // Questions the endpoint is asked at once: a flood of distinct made-up tokens is not
    // passed on to it one for one (each beyond is refused at once, naming why).
    static constexpr std::size_t max_in_flight = 64;

    token_introspection(boost::asio::any_io_executor ex, config::introspection cfg,
                        std::string resource);

    // The remembered answer about `token` at `now`, if one stands.
    std::optional<verdict> known(std::string_view token, std::int64_t now);
    // The endpoint's answer (asked unless remembered).
    boost::asio::awaitable<verdict> ask(std::string_view token, std::int64_t now);
    std::uint64_t questions() const { return questions_; }
    // From now on a token not remembered here is asked of `keeper` (the same endpoint's
    // questioner on another io thread, run by `there`), and its answer remembered as it does.
    void ask_through(token_introspection& keeper, boost::asio::any_io_executor there) {
        keeper_ = &keeper;
        keeper_ex_ = std::move(there);
    }

private:
    struct answer {
        policy::caller_ref who; // null: refused
        std::string why;
        std::int64_t until = 0;
    };
    std::optional<verdict> known_by(const std::string& digest, std::int64_t now);
    // The endpoint's answer about `token`, remembered by its digest (one question).
    boost::asio::awaitable<verdict> ask_endpoint(const std::string& token,
                                                 const std::string& digest, std::int64_t now);
    // The keeper's answer, remembered here for as long as it remembers it.
    boost::asio::awaitable<verdict> ask_keeper(const std::string& token, const std::string& digest,
                                               std::int64_t now);
    void remember(std::string digest, answer a);

    boost::asio::any_io_executor ex_;
    config::introspection cfg_;
    std::string resource_;
    std::string secret_;
    std::unordered_map<std::string, answer> answers_; // by the token's SHA-256
    std::map<std::string, std::shared_ptr<transport::ask_flight>> asking_;
    std::uint64_t questions_ = 0;
    bool saturated_ = false;                // logged once per spell at the bound
    token_introspection* keeper_ = nullptr; // on keeper_ex_'s thread
    boost::asio::any_io_executor keeper_ex_;
};

} // namespace gate::gateway
