// One trusted issuer's signing keys, fetched from its key set URL on the io thread and cached
// (protocol/jose/key_set_refresh decides when, for as long as the answer's caching headers
// allow, bounded: key_set_lifetime): one fetch in flight at a time, shared by every token
// waiting for it, bounded in time (5 s) and size (256 KiB). A failed refetch keeps the keys in
// hand, and is retried no sooner than key_set_refresh::min_interval. A refetch that no longer has
// a key the set had tells its owner at once (`withdrawn`), so tokens that key verified go too.
// On the other io threads a source asks the first thread's instead of the issuer
// (docs/io-threads.md), so the process fetches the set once.
#pragma once

#include "protocol/jose/jwk.hpp"
#include "protocol/jose/key_set_refresh.hpp"
#include "transport/io/ask_flight.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway {

class key_set_source {
public:
    static constexpr auto fetch_timeout = std::chrono::seconds(5);
    static constexpr std::size_t max_bytes = 256 * 1024;

    // Called on the io thread, in the refetch, with the kids the new set no longer has
    // (protocol/jose's withdrawn_kids), before any token can be checked against it.
    using withdrawn_handler = std::function<void(const std::vector<std::string>& kids)>;

    key_set_source(boost::asio::any_io_executor ex, std::string uri,
                   withdrawn_handler withdrawn = nullptr);

    // The keys to check a token naming `kid` (empty: none) against; null when no fetch has
    // succeeded yet.
    boost::asio::awaitable<std::shared_ptr<const protocol::jose::key_set>>
    keys(std::string_view kid);

    // How long a token verified with the set in hand may go unverified: until a token would
    // make gate fetch the set again (key_set_refresh::due_at), zero without a set.
    std::chrono::seconds fresh_for(std::chrono::steady_clock::time_point now) const;

    // From now on a fetch asks `keeper` (the same set's source on another io thread, run by
    // `there`) for the set it holds, fetched by it when due, rather than the issuer.
    void ask_through(key_set_source& keeper, boost::asio::any_io_executor there) {
        keeper_ = &keeper;
        keeper_ex_ = std::move(there);
    }

    const std::string& uri() const { return uri_; }
    std::uint64_t fetches() const { return fetches_; }
    const std::string& last_error() const { return last_error_; }

private:
    boost::asio::awaitable<void> fetch(std::string kid);
    boost::asio::awaitable<void> fetch_from_issuer();
    boost::asio::awaitable<void> take_from_keeper(std::string kid);
    // A set fetched (or taken from the keeper), good for `lifetime`: in use from now on, and
    // the kids it no longer has withdrawn.
    void adopt(std::shared_ptr<const protocol::jose::key_set> fetched,
               std::chrono::seconds lifetime);

    boost::asio::any_io_executor ex_;
    std::string uri_;
    withdrawn_handler withdrawn_;
    std::shared_ptr<boost::asio::ssl::context> tls_;
    std::shared_ptr<const protocol::jose::key_set> set_;
    protocol::jose::key_set_refresh refresh_;
    transport::ask_flight flight_;
    std::uint64_t fetches_ = 0;
    std::string last_error_;
    key_set_source* keeper_ = nullptr; // on keeper_ex_'s thread
    boost::asio::any_io_executor keeper_ex_;
};

} // namespace gate::gateway
