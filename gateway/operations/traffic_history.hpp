// The console's short memory of traffic (docs/operations.md, Introspection and the console):
// per upstream, the last 15 minutes in 10 s buckets of requests by outcome and a small
// log-scale latency histogram (for p50 and p99), and the latest refusals. Plain C++ with time
// passed in. Nothing here is exported: /api/traffic reads it, /metrics does not.
//
// Cost: record() is a handful of instructions on the io thread, which alone touches it (one io
// thread: docs/architecture.md, Threads), so it takes no lock; it allocates once per upstream,
// the window of its first request (about 40 KB), so an upstream no request reached costs its
// id only (a thousand configured upstreams are not 40 MB zeroed by the first request). A
// bucket older than the window is zeroed when its slot comes round again. A refusal copies its
// method, name and rule into a ring of strings whose capacity is reused.
#pragma once

#include "protocol/outcome.hpp"

#include <array>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::gateway {

class traffic_history {
public:
    using clock = std::chrono::steady_clock;
    using time_point = clock::time_point;
    using duration = clock::duration;

    static constexpr auto bucket_width = std::chrono::seconds(10);
    static constexpr std::size_t bucket_count = 90; // 15 minutes
    // Four bins per doubling from 4 µs (each about 19% wide), the last from about 59 s on.
    static constexpr std::size_t latency_bins = 100;
    static constexpr std::size_t outcome_count = protocol::outcome_names.size();
    static constexpr std::size_t refusal_count = 64;
    // Where a request no single upstream answered is counted (lists, initialize, refusals
    // before routing): the series named "".
    static constexpr std::size_t unrouted = 0;

    traffic_history();
    // A copy of all it holds: another io thread's history, copied on that thread for the one
    // that answers /api/traffic (docs/io-threads.md).
    traffic_history(const traffic_history& other);
    traffic_history(traffic_history&&) = default;
    traffic_history& operator=(const traffic_history&) = delete;
    // What `other` (another io thread's copy) holds, added in: the requests of one bucket summed,
    // a bucket newer than this one's taken as it is, the newest refusals of both kept.
    void add(const traffic_history& other);

    // The upstreams of configuration `version`, by their place in it; a series is kept by
    // id across versions, and those of upstreams it no longer has are dropped. An older
    // version than the one followed changes nothing (its requests find their series by id).
    void follow(std::uint64_t version, const std::vector<std::string>& ids);
    std::uint64_t version() const { return version_; }
    bool followed() const { return followed_; }
    // The series of the upstream at `position` of configuration `version` named `id`;
    // unrouted when none is kept for it.
    std::size_t slot(std::uint64_t version, std::size_t position, std::string_view id) const {
        if (version == version_ && position < by_position_.size() &&
            series_[by_position_[position]].id == id)
            return by_position_[position];
        return slot_of(id);
    }
    std::size_t slot_of(std::string_view id) const;
    // How many series hold a window: those a request reached (each about 40 KB).
    std::size_t windows_held() const;

    void record(std::size_t slot, protocol::outcome o, duration took, time_point now) {
        auto& s = series_[slot];
        if (!s.held) [[unlikely]]
            s.held = std::make_unique<window_buckets>();
        auto tick = now.time_since_epoch() / bucket_width;
        auto& b = (*s.held)[static_cast<std::size_t>(tick) % bucket_count];
        if (b.tick != tick) {
            b = bucket{};
            b.tick = tick;
        }
        ++b.outcomes[static_cast<std::size_t>(o)];
        ++b.latency[latency_bin(took)];
    }

    // A refused request, for /api/traffic's latest refusals (shown to its own caller only).
    struct refusal {
        time_point at{};
        std::string method, name, upstream, rule, who; // who: principal_key, "" anonymous
        protocol::outcome outcome = protocol::outcome::denied;
    };
    void refused(time_point at, std::string_view method, std::string_view name,
                 std::string_view upstream, protocol::outcome o, std::string_view rule,
                 std::string_view who);
    // The latest refusals of `who`, newest first.
    std::vector<refusal> refusals_of(std::string_view who) const;
    // Whether the outcome is a refusal (the request was not let through), not an error.
    static constexpr bool is_refusal(protocol::outcome o) {
        using protocol::outcome;
        return o == outcome::denied || o == outcome::rate_limited ||
               o == outcome::unauthenticated || o == outcome::forbidden ||
               o == outcome::budget_exhausted;
    }

    static std::size_t latency_bin(duration took) {
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
        auto v = static_cast<std::uint64_t>(us > 0 ? us : 0);
        if (v < 4)
            return static_cast<std::size_t>(v);
        auto width = static_cast<std::size_t>(std::bit_width(v)); // >= 3
        auto bin = 4 * (width - 2) + static_cast<std::size_t>((v >> (width - 3)) & 3);
        return bin < latency_bins ? bin : latency_bins - 1;
    }
    // The microseconds a bin starts at and ends before.
    static std::uint64_t bin_floor_us(std::size_t bin);
    static std::uint64_t bin_ceiling_us(std::size_t bin) { return bin_floor_us(bin + 1); }

    // One bucket as read: how many of each outcome, the latency quantiles (milliseconds, the
    // middle of their bin; nullopt with no request), and the seconds it covers so far.
    struct point {
        time_point start{};
        double seconds = 0;
        std::array<std::uint32_t, outcome_count> outcomes{};
        std::uint64_t requests = 0;
        std::optional<double> p50_ms, p99_ms;
    };
    struct window {
        std::vector<point> points; // oldest first, bucket_count of them, the last the current
        point total;               // the whole window
    };
    // The series of `id` ("" unrouted) as of `now`; nullopt when none is kept.
    std::optional<window> read(std::string_view id, time_point now) const;

private:
    struct bucket {
        std::int64_t tick = -1; // bucket_width intervals since the clock's epoch
        std::array<std::uint32_t, outcome_count> outcomes{};
        std::array<std::uint32_t, latency_bins> latency{};
    };
    using window_buckets = std::array<bucket, bucket_count>;
    struct series {
        std::string id;
        // Made on its first request; held by pointer, so never moved when another series comes
        // or goes.
        std::unique_ptr<window_buckets> held;
    };
    std::vector<series> series_;
    std::unordered_map<std::string, std::size_t> by_id_;
    std::vector<std::size_t> by_position_;
    std::uint64_t version_ = 0;
    bool followed_ = false;
    std::array<refusal, refusal_count> refusals_;
    std::size_t refusals_next_ = 0, refusals_held_ = 0;
};

} // namespace gate::gateway
