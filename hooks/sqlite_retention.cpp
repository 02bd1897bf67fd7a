#include "hooks/sqlite_retention.hpp"

#include <limits>

namespace gate::hooks::sqlite {

namespace {

std::int64_t retention_ms(clock_time t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

} // namespace

pruned_deliveries prune_deliveries(statement_cache& cache, clock_time before, std::size_t limit) {
    // deliveries_finished holds finished rows only, by their last change: the batch is the
    // front of that index, whatever the size of the queue beside it.
    std::vector<std::string> ids;
    {
        statement s(cache, "SELECT id FROM deliveries INDEXED BY deliveries_finished WHERE "
                           "status IN ('succeeded', 'dead') AND updated_at < ? ORDER BY "
                           "updated_at LIMIT ?");
        s.bind(1, retention_ms(before)).bind(2, static_cast<std::int64_t>(limit));
        while (s.step())
            ids.push_back(s.text(0));
    }
    pruned_deliveries out;
    for (const auto& id : ids) {
        // The log first, by its key's prefix, to count it (a cascade's rows are not counted).
        statement a(cache, "DELETE FROM delivery_attempts WHERE delivery_id = ?");
        a.bind(1, id).step();
        out.attempts += static_cast<std::size_t>(sqlite3_changes(cache.db()));
        statement d(cache, "DELETE FROM deliveries WHERE id = ?");
        d.bind(1, id).step();
        out.deliveries += static_cast<std::size_t>(sqlite3_changes(cache.db()));
    }
    return out;
}

pruned_events prune_events(statement_cache& cache, clock_time before,
                           const std::optional<event_key>& after, std::size_t limit) {
    pruned_events out;
    std::vector<std::string> ids;
    {
        statement s(cache, "SELECT id, created_at FROM events INDEXED BY events_by_age WHERE "
                           "created_at < ?1 AND (created_at, id) > (?2, ?3) ORDER BY "
                           "created_at, id LIMIT ?4");
        s.bind(1, retention_ms(before));
        s.bind(2, after ? after->created_ms : std::numeric_limits<std::int64_t>::min());
        s.bind(3, after ? after->id : std::string());
        s.bind(4, static_cast<std::int64_t>(limit));
        while (s.step()) {
            ids.push_back(s.text(0));
            out.last = event_key{s.integer(1), ids.back()};
        }
    }
    out.scanned = ids.size();
    for (const auto& id : ids) {
        // deliveries_by_event answers the question, and the foreign key's check after it.
        statement d(cache, "DELETE FROM events WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM "
                           "deliveries INDEXED BY deliveries_by_event WHERE event_id = ?1)");
        d.bind(1, id).step();
        out.deleted += static_cast<std::size_t>(sqlite3_changes(cache.db()));
    }
    return out;
}

} // namespace gate::hooks::sqlite
