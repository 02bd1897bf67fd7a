// The PostgreSQL store's retention batches (store::prune_deliveries, store::prune_events; the
// sweep is retention.hpp), each one statement run by the store's `run`. Used by
// postgres_store.cpp only.
#pragma once

#include "hooks/postgres_result.hpp"
#include "hooks/store.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace gate::hooks::pg {

// The store's statement runner (prepared once per connection).
using runner =
    std::function<std::unique_ptr<result>(const std::string&, const std::vector<param>&)>;

pruned_deliveries prune_deliveries(const runner& run, clock_time before, std::size_t limit);
pruned_events prune_events(const runner& run, clock_time before,
                           const std::optional<event_key>& after, std::size_t limit);

} // namespace gate::hooks::pg
