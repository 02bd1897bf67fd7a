// Which upstream owns a task, for whom, until when: plain C++ with time passed in.
//
// A `tools/call` whose result carries a minted task pins (task id, principal) to the upstream
// that minted it for 24 hours. A lookup by another principal is indistinguishable from an
// unknown id to the caller (the gateway answers -32002 for both); the registry still tells
// them apart, because only a truly unknown id is worth probing the upstreams for.
//
// A task with no record is found by a probe; where it was found is remembered as *located*:
// any caller reaches it there, as the spec says of a task without a record, and nobody owns
// it. A probe never pins: whoever probed first would otherwise take the task from everyone,
// its minter included (after a restart without the fleet's store, say).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace gate::actors {

struct task_owner {
    enum class kind { owned, foreign, located, unknown };
    kind what = kind::unknown;
    // When owned or located: the upstream's id. Never its position: a reload may reorder the
    // upstreams.
    std::string upstream;
};

class task_registry {
public:
    using time_point = std::chrono::steady_clock::time_point;
    static constexpr auto lifetime = std::chrono::hours(24);

    // Pins the task to `upstream` for `principal` (again: the record is renewed).
    void pin(const std::string& task_id, std::uint64_t principal, std::string upstream,
             time_point now);
    // Remembers where a probe found a task nobody has a record of (renewed like a pin).
    void locate(const std::string& task_id, std::string upstream, time_point now);
    // Owned by `principal`, else foreign when another principal owns it, else located, else
    // unknown.
    task_owner find(const std::string& task_id, std::uint64_t principal, time_point now) const;
    // Drops expired records; returns how many.
    std::size_t expire(time_point now);
    std::size_t size() const { return records_.size() + located_.size(); }

private:
    struct record {
        std::string upstream;
        time_point expires;
    };
    std::map<std::pair<std::string, std::uint64_t>, record> records_;
    std::map<std::string, record> located_;
};

} // namespace gate::actors
