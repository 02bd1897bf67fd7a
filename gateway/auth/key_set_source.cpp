#include "gateway/auth/key_set_source.hpp"

#include "protocol/jose/key_set_lifetime.hpp"
#include "transport/client/http_fetch.hpp"
#include "transport/io/answered_on.hpp"

#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace jose = protocol::jose;
using clock = std::chrono::steady_clock;

key_set_source::key_set_source(asio::any_io_executor ex, std::string uri,
                               withdrawn_handler withdrawn)
    : ex_(std::move(ex)), uri_(std::move(uri)), withdrawn_(std::move(withdrawn)) {}

std::chrono::seconds key_set_source::fresh_for(clock::time_point now) const {
    auto due = refresh_.due_at();
    if (!due || *due <= now)
        return std::chrono::seconds(0);
    return std::chrono::floor<std::chrono::seconds>(*due - now);
}

asio::awaitable<std::shared_ptr<const jose::key_set>> key_set_source::keys(std::string_view kid) {
    for (;;) {
        bool known =
            set_ &&
            (kid.empty() || std::any_of(set_->keys.begin(), set_->keys.end(),
                                        [&](const jose::public_key& k) { return k.kid() == kid; }));
        if (!refresh_.should_fetch(known, clock::now()))
            co_return set_;
        // Tokens arriving while a fetch is out wait for it, then decide again from its result.
        if (co_await flight_.run_or_wait([this, kid = std::string(kid)]() { return fetch(kid); }))
            co_return set_;
    }
}

asio::awaitable<void> key_set_source::fetch(std::string kid) {
    // Recorded when the fetch lands, not when it starts: tokens arriving while it is out must
    // find it due and wait for it (ask_flight) rather than go on with no keys.
    struct landed {
        jose::key_set_refresh& refresh;
        ~landed() { refresh.attempted(clock::now()); }
    } on_landing{refresh_};
    if (keeper_)
        co_await take_from_keeper(std::move(kid));
    else
        co_await fetch_from_issuer();
}

asio::awaitable<void> key_set_source::take_from_keeper(std::string kid) {
    struct kept {
        std::shared_ptr<const jose::key_set> set;
        std::chrono::seconds fresh_for{0};
        std::string error;
    };
    auto got = co_await transport::answered_on<kept>(
        keeper_ex_,
        [keeper = keeper_, kid = std::move(kid)]() -> asio::awaitable<kept> {
            auto set = co_await keeper->keys(kid);
            co_return kept{std::move(set), keeper->fresh_for(clock::now()), keeper->last_error()};
        },
        kept{nullptr, {}, "the io thread that keeps it could not answer"});
    // The keeper logged its outage; the keys in hand (if any) stay in use here too.
    last_error_ = std::move(got.error);
    if (got.set)
        adopt(std::move(got.set), got.fresh_for);
}

void key_set_source::adopt(std::shared_ptr<const jose::key_set> fetched,
                           std::chrono::seconds lifetime) {
    if (fetched != set_) {
        auto gone = set_ ? jose::withdrawn_kids(*set_, *fetched) : std::vector<std::string>();
        set_ = std::move(fetched);
        if (!gone.empty()) {
            if (!keeper_) // said once, by the source that fetched it
                spdlog::info("key set {} no longer has {} key(s); tokens they verified are "
                             "verified again",
                             uri_, gone.size());
            if (withdrawn_)
                withdrawn_(gone);
        }
    }
    refresh_.fetched(clock::now(), lifetime);
}

asio::awaitable<void> key_set_source::fetch_from_issuer() {
    ++fetches_;
    transport::fetch_request req;
    req.url = uri_;
    req.timeout = fetch_timeout;
    req.max_body = max_bytes;
    auto answer = co_await http_fetch(ex_, std::move(req), tls_);
    std::string error;
    if (auto* e = std::get_if<std::string>(&answer)) {
        error = *e;
    } else {
        auto& a = std::get<transport::fetch_answer>(answer);
        if (a.status != 200) {
            error = uri_ + " answered HTTP " + std::to_string(a.status);
        } else {
            auto parsed = jose::parse_key_set(a.body);
            if (auto* why = std::get_if<std::string>(&parsed)) {
                error = uri_ + ": " + *why;
            } else {
                adopt(std::make_shared<const jose::key_set>(
                          std::move(std::get<jose::key_set>(parsed))),
                      jose::key_set_lifetime({std::move(a.cache_control), std::move(a.expires),
                                              std::move(a.date), std::move(a.age)},
                                             std::chrono::system_clock::now()));
                if (!last_error_.empty())
                    spdlog::info("key set {} fetched again ({} keys)", uri_, set_->keys.size());
                last_error_.clear();
                co_return;
            }
        }
    }
    // Logged once per outage; the keys in hand (if any) stay in use.
    if (last_error_.empty())
        spdlog::warn("cannot fetch the key set {}: {}", uri_, error);
    last_error_ = std::move(error);
}

} // namespace gate::gateway
