// Pinned tool definitions (docs/configuration.md, "Pinned definitions"): each tool's digest
// (protocol/tool_definition) is compared with the one the lock file holds, or, without a lock
// file, with the first one gate saw. A definition that differs, or a tool the lock file does
// not hold, is a change: reported once per new digest, and, where the upstream's pin is
// `block`, withheld. Plain C++, the io thread's.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

namespace gate {

enum class pin_mode { off, warn, block };

std::optional<pin_mode> pin_mode_named(std::string_view name);
std::string_view pin_mode_name(pin_mode m);

struct definition_change {
    std::string pinned;    // the digest pinned or locked; empty: a tool the lock file lacks
    std::string seen;      // the digest listed now
    bool reported = false; // whether this change was told before (log, audit, metric once)
};

class definition_pins {
public:
    using lock_map = std::map<std::string, std::map<std::string, std::string>>;

    // The lock file's digests (a reload's), or none: pins are then the first seen. Switching
    // keeps the first-seen pins, for when the lock file goes away again.
    void use_lock(std::optional<lock_map> lock);
    bool locked() const { return lock_.has_value(); }

    // The change of `tool` at `upstream`, now listed with `digest`; nullopt when it is as
    // pinned. Without a lock file, the first digest seen is pinned here.
    std::optional<definition_change> judge(const std::string& upstream, const std::string& tool,
                                           const std::string& digest);

    // Pins shared by a fleet: the first digest an instance pinned (from the shared store) is
    // the one this instance compares with.
    void pin_shared(const std::string& upstream, const std::string& tool, std::string digest);

private:
    static constexpr std::size_t max_pins = 100'000;
    std::optional<lock_map> lock_;
    std::map<std::pair<std::string, std::string>, std::string> first_seen_;
    std::set<std::tuple<std::string, std::string, std::string>> reported_;
};

} // namespace gate
