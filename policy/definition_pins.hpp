// Pinned tool definitions (docs/configuration.md, "Pinned definitions"): each tool's digest
// (protocol/tool_definition) is compared with the one the lock file holds, or, without a lock
// file, with the first one gate saw. A definition that differs, or a tool the lock file does
// not hold, is a change: reported once per new digest, and, where the upstream's pin is
// `block`, withheld. In a fleet the first seen is the first any instance saw: the shared
// store's (gateway/entry/definition_reports asks it). Plain C++ with time passed in, the io
// thread's.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

namespace gate::policy {

enum class pin_mode { off, warn, block };

std::optional<pin_mode> pin_mode_named(std::string_view name);
std::string_view pin_mode_name(pin_mode m);

struct definition_change {
    std::string pinned;    // the digest pinned or locked; empty: a tool the lock file lacks
    std::string seen;      // the digest listed now
    bool reported = false; // whether this change was told before (log, audit, metric once)
    // No pin, and none can be made: the upstream holds max_pins_per_upstream already. Judged
    // as a change (fail closed); told once per upstream.
    bool unpinnable = false;
};

class definition_pins {
public:
    using clock = std::chrono::steady_clock;
    // How long a pin agreed with a fleet's store is taken as the fleet's without asking again.
    static constexpr auto share_interval = std::chrono::minutes(10);
    using lock_map = std::map<std::string, std::map<std::string, std::string>>;

    // The lock file's digests (a reload's), or none: pins are then the first seen. Switching
    // keeps the first-seen pins, for when the lock file goes away again.
    void use_lock(std::optional<lock_map> lock);
    bool locked() const { return lock_.has_value(); }

    // The change of `tool` at `upstream`, now listed with `digest`; nullopt when it is as
    // pinned. Without a lock file, the first digest seen is pinned here.
    std::optional<definition_change> judge(const std::string& upstream, const std::string& tool,
                                           const std::string& digest);

    // Pins shared by a fleet (docs/fleet.md): the digest to offer the shared store for `tool`,
    // listed with `digest` at `now` (the listed one: a pin an operator deleted from the store to
    // accept a change is then what the fleet lists), or nullopt when the store need not be
    // asked: a lock file decides, the pin was agreed with the store within share_interval, or
    // the upstream's pins are full and `tool` has none.
    std::optional<std::string> to_share(const std::string& upstream, const std::string& tool,
                                        const std::string& digest, clock::time_point now) const;
    // The store's pin (the first any instance offered): the one this instance compares with
    // from now on, agreed at `now`. False, and nothing pinned, for a value that is not a digest
    // (a store written by something else).
    bool pin_shared(const std::string& upstream, const std::string& tool, std::string digest,
                    clock::time_point now);

    // First-seen pins kept per upstream: one listing ever new names fills its own pins, never
    // another upstream's (the same bound as the tools an upstream's client learns).
    static constexpr std::size_t max_pins_per_upstream = 10'000;

private:
    static constexpr std::size_t max_reports = 100'000;
    bool full(const std::string& upstream) const;
    std::optional<lock_map> lock_;
    struct pin {
        std::string digest;
        std::optional<clock::time_point> agreed; // with the fleet's store, when it was
    };
    std::map<std::pair<std::string, std::string>, pin> first_seen_;
    std::map<std::string, std::size_t, std::less<>> pins_of_; // first_seen_'s, per upstream
    std::set<std::string, std::less<>> told_full_;            // upstreams whose pins are full
    std::set<std::tuple<std::string, std::string, std::string>> reported_;
};

} // namespace gate::policy
