// Per-tool rate limits (upstreams[].toolLimits), as plain C++ with time passed in: which of an
// upstream's entries a call of one of its tools is counted in, and the windows that count them
// (actors/guards/sliding_window, one per entry for everyone and one per entry and principal:
// actors/guards/principal_windows). The limiter actor keeps the windows; stage 6 spends them
// through leases like stage 3's (gateway/pipeline/s6_tool_limits).
//
// A window is named by its upstream and its entry's names (config refuses two entries with the
// same names), never by the entry's place in the list: a reload that reorders the entries or
// changes others keeps counting it. Its limit travels with each ask, and a changed limit starts
// the window afresh.
#pragma once

#include "actors/guards/principal_windows.hpp"
#include "actors/guards/sliding_window.hpp"
#include "config/model.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::actors {

// One window a call is counted in.
struct tool_window_ref {
    std::size_t entry = 0; // its place in the upstream's toolLimits (for messages)
    std::string scope;     // the entry's window: "tool:<upstream>:<names>"
    std::string principal; // empty: everyone's window; else the principal's own in the entry
    std::int64_t per_minute = 0;

    bool per_principal() const { return !principal.empty(); }
    // Its name in the fleet's store, and its lease's on the io thread.
    std::string shared() const { return principal.empty() ? scope : scope + ":" + principal; }
};

// The windows a call of `tool` (the upstream's own name) by `principal` (its principal_key;
// empty: anonymous, which has no per-principal window) is counted in: for each entry with a
// name pattern that matches (`*` any run of characters), its everyone window then its
// per-principal one, in the entries' order.
std::vector<tool_window_ref> tool_windows_for(const config::upstream& u, std::string_view tool,
                                              const std::string& principal);

class tool_windows {
public:
    using time_point = sliding_window::time_point;

    explicit tool_windows(std::size_t max_principals = 100'000) : max_principals_(max_principals) {}

    // A batch of window `scope`'s slots (everyone's, or `principal`'s own when not empty),
    // counted under `per_minute` (sliding_window::take_batch).
    sliding_window::batch take_batch(const std::string& scope, const std::string& principal,
                                     std::int64_t per_minute, time_point now,
                                     const slot_demand& demand = {});

private:
    struct per_principal {
        std::int64_t limit;
        principal_windows windows;
    };
    std::size_t max_principals_;
    std::unordered_map<std::string, sliding_window> everyone_;
    std::unordered_map<std::string, per_principal> principals_;
};

} // namespace gate::actors
