#include "hooks/dispatcher.hpp"

#include "hooks/delivery_body.hpp"
#include "hooks/event_types.hpp"
#include "hooks/retry_policy.hpp"
#include "hooks/store_actor.hpp"
#include "protocol/random_id.hpp"
#include "protocol/utc_timestamp.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace gate::hooks {

namespace asio = boost::asio;
using sys_clock = std::chrono::system_clock;

namespace {

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(sys_clock::now().time_since_epoch())
        .count();
}

} // namespace

dispatcher::dispatcher(asio::io_context& io, caf::actor store, const delivery_settings& settings,
                       hooks_metrics& metrics)
    : io_(io), store_(std::move(store)), settings_(settings), metrics_(metrics),
      sender_(io.get_executor(), settings), wake_(io) {}

void dispatcher::start() {
    asio::co_spawn(io_, loop(), asio::detached);
}

void dispatcher::wake() {
    woken_ = true;
    wake_.cancel();
}

void dispatcher::stop() {
    stopped_ = true;
    wake_.cancel();
}

asio::awaitable<void> dispatcher::loop() {
    while (!stopped_) {
        woken_ = false;
        std::size_t room = settings_.concurrency - std::min(settings_.concurrency, in_flight_);
        std::size_t claimed = 0;
        // Under load, claims wait for a quarter of the slots to free up: each claim is a
        // query with a fixed cost (on PostgreSQL, a scan past the rows just claimed), and one
        // per finished attempt made the database the limit of a backlog.
        std::size_t batch = std::max<std::size_t>(1, settings_.concurrency / 4);
        if (room > 0 && (room >= batch || in_flight_ == 0)) {
            auto lease = settings_.lease;
            auto due = co_await on_store(store_, [room, lease](store& s) {
                return s.claim_due(sys_clock::now(), room, lease);
            });
            if (due) {
                claimed = due->size();
                for (auto& d : *due) {
                    ++in_flight_;
                    asio::co_spawn(io_, attempt(std::move(d)), [this](std::exception_ptr) {
                        --in_flight_;
                        wake(); // a slot is free: more may be due
                    });
                }
            }
        }
        if (stopped_)
            break;
        sender_.sweep(std::chrono::steady_clock::now());
        if (claimed > 0 && claimed == room)
            continue; // there may be more due now
        if (woken_)
            continue;
        wake_.expires_after(settings_.poll);
        boost::system::error_code ec; // cancellation is the wake-up
        co_await wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

asio::awaitable<void> dispatcher::attempt(due_delivery due) {
    delivery_envelope e{due.d.id,       due.d.event_id,     due.d.event_type,
                        due.event_time, due.d.organization, due.data};
    auto body = delivery_body(e);
    auto headers = delivery_headers(e, body, due.secret, unix_now());
    auto started = std::chrono::steady_clock::now();
    auto r = co_await sender_.post(due.url, body, headers);
    auto took = std::chrono::steady_clock::now() - started;
    double seconds = std::chrono::duration<double>(took).count();

    attempt_record rec;
    rec.delivery_id = due.d.id;
    rec.claim = due.claim;
    rec.result = {r.status, r.error, r.status ? std::optional(r.body) : std::nullopt,
                  std::chrono::duration_cast<std::chrono::milliseconds>(took).count()};
    rec.now = sys_clock::now();
    rec.next_attempt_at = rec.now;
    auto outcome = r.status ? classify(*r.status) : attempt_outcome::retry;
    std::string_view label;
    if (outcome == attempt_outcome::delivered) {
        rec.next = delivery_status::succeeded;
        label = "succeeded";
    } else if (outcome == attempt_outcome::gone) {
        rec.next = delivery_status::dead;
        rec.disable_webhook = true;
        label = "gone";
    } else {
        std::uniform_real_distribution<double> draw(0.0, 1.0);
        auto next = due.d.dead_letter_retry
                        ? std::nullopt // an operator's retry: one attempt, then back
                        : next_attempt(settings_.retry, due.d.attempts + 1, rec.now, r.retry_after,
                                       draw(jitter_));
        if (next) {
            rec.next = delivery_status::pending;
            rec.next_attempt_at = *next;
            label = "retry";
        } else {
            rec.next = delivery_status::dead;
            label = "dead";
        }
    }
    metrics_.attempt(label, seconds);
    outcomes_.push_back(std::move(rec));
    if (!flushing_) {
        flushing_ = true;
        asio::co_spawn(io_, flush_outcomes(), asio::detached);
    }
}

asio::awaitable<void> dispatcher::flush_outcomes() {
    // Outcomes that arrive while a batch is being written go in the next one.
    while (!outcomes_.empty()) {
        auto batch = std::exchange(outcomes_, {});
        auto saved = co_await on_store(store_, [batch](store& s) {
            s.record_all(batch);
            return true;
        });
        if (!saved)
            spdlog::error("{} delivery outcome(s) could not be recorded; those deliveries are "
                          "attempted again when their claims lapse",
                          batch.size());
    }
    flushing_ = false;
}

asio::awaitable<send_result> dispatcher::test(const webhook& w) {
    delivery_envelope e{"test_" + protocol::random_id().substr(0, 24),
                        "evt_test",
                        std::string(test_event),
                        protocol::utc_timestamp(sys_clock::now()),
                        w.organization,
                        R"({"message":"a test delivery from gate-hooks","webhook_id":")" + w.id +
                            R"("})"};
    auto body = delivery_body(e);
    co_return co_await sender_.post(w.url, body, delivery_headers(e, body, w.secret, unix_now()));
}

} // namespace gate::hooks
