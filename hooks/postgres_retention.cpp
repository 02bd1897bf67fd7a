#include "hooks/postgres_retention.hpp"

#include <limits>

namespace gate::hooks::pg {

namespace {

std::int64_t retention_pg_ms(clock_time t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

} // namespace

pruned_deliveries prune_deliveries(const runner& run, clock_time before, std::size_t limit) {
    // The batch is the front of deliveries_finished (finished rows only, by their last
    // change), locked SKIP LOCKED so instances sweeping at once share the work rather than
    // wait on each other; a row that changed meanwhile (a dead letter being retried) is
    // checked again under the lock and left. The log goes first in the same statement, to
    // be counted (the cascade then finds nothing).
    auto r = run("WITH doomed AS (SELECT id FROM deliveries WHERE status IN ('succeeded', "
                 "'dead') AND updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP "
                 "LOCKED), logs AS (DELETE FROM delivery_attempts WHERE delivery_id = "
                 "ANY(ARRAY(SELECT id FROM doomed)) RETURNING 1), gone AS (DELETE FROM "
                 "deliveries WHERE id = ANY(ARRAY(SELECT id FROM doomed)) RETURNING 1) SELECT "
                 "(SELECT count(*) FROM gone), (SELECT count(*) FROM logs)",
                 {p(retention_pg_ms(before)), p(static_cast<std::int64_t>(limit))});
    return {static_cast<std::size_t>(r->integer(0, 0)), static_cast<std::size_t>(r->integer(0, 1))};
}

pruned_events prune_events(const runner& run, clock_time before,
                           const std::optional<event_key>& after, std::size_t limit) {
    // The next events of the walk by events_by_age; those no delivery refers to (asked of
    // deliveries_by_event, as is the foreign key's check) are deleted. Events are written
    // with their deliveries in one statement, so none can gain a delivery this late.
    auto r = run("WITH scanned AS (SELECT id, created_at FROM events WHERE created_at < $1 AND "
                 "(created_at, id) > ($2::bigint, $3::text) ORDER BY created_at, id LIMIT $4), "
                 "gone AS (DELETE FROM events e WHERE e.id = ANY(ARRAY(SELECT id FROM scanned)) "
                 "AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id) RETURNING "
                 "1) SELECT (SELECT count(*) FROM scanned), (SELECT count(*) FROM gone), "
                 "(SELECT created_at FROM scanned ORDER BY created_at DESC, id DESC LIMIT 1), "
                 "(SELECT id FROM scanned ORDER BY created_at DESC, id DESC LIMIT 1)",
                 {p(retention_pg_ms(before)),
                  p(after ? after->created_ms : std::numeric_limits<std::int64_t>::min()),
                  p(after ? after->id : std::string()), p(static_cast<std::int64_t>(limit))});
    pruned_events out;
    out.scanned = static_cast<std::size_t>(r->integer(0, 0));
    out.deleted = static_cast<std::size_t>(r->integer(0, 1));
    if (!r->null(0, 2))
        out.last = event_key{r->integer(0, 2), r->text(0, 3)};
    return out;
}

} // namespace gate::hooks::pg
