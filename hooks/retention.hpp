// Retention (docs/webhooks.md, "Retention"): a delivery that is finished (delivered, or dead
// and not being retried) is deleted with its log of attempts once its last attempt is older
// than `retention.days`, and then every event that old which no delivery refers to any more.
// A sweep is a series of batches, each one short transaction of at most `batch` rows run as
// its own store job, so neither the database nor the store's thread is held by a whole sweep
// (claims, outcomes and the API's reads take their turns between batches). Time is passed
// in: the sweep deletes what is older than now - days at its start.
#pragma once

#include "hooks/settings.hpp"
#include "hooks/store.hpp"

#include <cstddef>
#include <optional>

namespace gate::hooks {

// Rows a batch deletes at most: deliveries (each with its log, at most
// kept_attempts_per_delivery attempts and in practice maxAttempts), or events.
inline constexpr std::size_t retention_batch = 500;

// What is older than this is past its retention at `now`.
clock_time retention_cutoff(clock_time now, const retention_settings& r);

// What a whole sweep deleted, and in how many batches (store calls).
struct sweep_totals {
    std::size_t deliveries = 0;
    std::size_t attempts = 0;
    std::size_t events = 0;
    std::size_t batches = 0;
    bool deleted_any() const { return deliveries + attempts + events > 0; }
};

// One sweep: the finished deliveries first, a batch at a time until a batch comes back short,
// then the events, walked once in (created_at, id) order (an event still referred to is
// passed, not looked at again by the next batch).
class retention_sweep {
public:
    retention_sweep(clock_time now, const retention_settings& r,
                    std::size_t batch = retention_batch);
    // One batch on `s`; false once the sweep is over (nothing more to do in it).
    bool step(store& s);
    const sweep_totals& totals() const { return totals_; }
    clock_time cutoff() const { return cutoff_; }

private:
    clock_time cutoff_;
    std::size_t batch_;
    bool events_ = false; // the deliveries are done
    bool done_ = false;
    std::optional<event_key> after_;
    sweep_totals totals_;
};

} // namespace gate::hooks
