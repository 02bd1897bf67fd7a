// The SQLite store's retention batches (store::prune_deliveries, store::prune_events; the
// sweep is retention.hpp). Each runs inside the caller's transaction. Used by sqlite_store.cpp
// only.
#pragma once

#include "hooks/sqlite_statement.hpp"
#include "hooks/store.hpp"

namespace gate::hooks::sqlite {

pruned_deliveries prune_deliveries(statement_cache& cache, clock_time before, std::size_t limit);
pruned_events prune_events(statement_cache& cache, clock_time before,
                           const std::optional<event_key>& after, std::size_t limit);

} // namespace gate::hooks::sqlite
