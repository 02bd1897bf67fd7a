// The keep-alive policy of an upstream endpoint's idle connections, as plain C++ with time
// passed in: the most recently used connection is reused first (the least likely to have been
// closed by the upstream); one idle longer than `max_age` is not trusted (Node's servers close
// idle connections at 5 s); at most `capacity` are kept. An empty pool holds no memory: a
// federation of a thousand upstreams keeps one per endpoint on each io thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace gate::transport {

template <class Connection> class idle_pool {
public:
    using time_point = std::chrono::steady_clock::time_point;

    idle_pool(std::size_t capacity, std::chrono::steady_clock::duration max_age)
        : capacity_(capacity), max_age_(max_age) {}

    // The freshest connection young enough to trust; the ones too old are dropped on the way.
    std::optional<Connection> take(time_point now) {
        auto young = std::find_if(entries_.begin(), entries_.end(),
                                  [&](const entry& e) { return now - e.since <= max_age_; });
        entries_.erase(entries_.begin(), young);
        if (entries_.empty())
            return std::nullopt;
        auto c = std::move(entries_.back().connection);
        entries_.pop_back();
        return c;
    }
    bool full() const { return entries_.size() >= capacity_; }
    // Keeps `c` for reuse, unless the pool is full (then it is dropped, which closes it).
    bool give(Connection c, time_point now) {
        if (full())
            return false;
        entries_.push_back(entry{std::move(c), now});
        return true;
    }
    // A reused connection turned out dead: the ones idle beside it likely are too.
    void clear() { entries_.clear(); }
    std::size_t size() const { return entries_.size(); }

private:
    struct entry {
        Connection connection;
        time_point since;
    };
    std::size_t capacity_;
    std::chrono::steady_clock::duration max_age_;
    std::vector<entry> entries_; // oldest first
};

} // namespace gate::transport
