#include "hooks/retention.hpp"

namespace gate::hooks {

clock_time retention_cutoff(clock_time now, const retention_settings& r) {
    return now - std::chrono::hours(24) * r.days;
}

retention_sweep::retention_sweep(clock_time now, const retention_settings& r, std::size_t batch)
    : cutoff_(retention_cutoff(now, r)), batch_(batch) {}

bool retention_sweep::step(store& s) {
    if (done_)
        return false;
    ++totals_.batches;
    if (!events_) {
        auto p = s.prune_deliveries(cutoff_, batch_);
        totals_.deliveries += p.deliveries;
        totals_.attempts += p.attempts;
        // A short batch: none is left (on PostgreSQL, or another instance holds the rest,
        // which it deletes itself).
        events_ = p.deliveries < batch_;
        return true;
    }
    auto e = s.prune_events(cutoff_, after_, batch_);
    totals_.events += e.deleted;
    if (e.last)
        after_ = e.last;
    done_ = e.scanned < batch_;
    return !done_;
}

} // namespace gate::hooks
