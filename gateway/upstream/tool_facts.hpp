// What the tools lists gate fetched of one upstream entry said of its tools (app-only, hints,
// withheld under a pin; the Mcp-Param-* annotations and the definitions dropped for theirs),
// one copy for the entry's clients on every io thread (docs/io-threads.md): the routers'
// shared cache lets one thread's fetch serve every thread, so what that fetch learnt is what
// every thread's calls are judged by.
//
// Threading: read on every call from any io thread (a published snapshot, never under a lock);
// a fetched list or a reload publishes a new one, writers one at a time.
#pragma once

#include "actors/published.hpp"
#include "gateway/upstream/listed_tools.hpp"
#include "gateway/upstream/tool_param_headers.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

namespace gate::gateway {

struct tool_facts {
    listed_tools tools;
    tool_param_headers headers;
};

class shared_tool_facts {
public:
    // What is known now: a snapshot the reader holds for as long as it reads it (a pointer
    // into it stays valid while it is held).
    std::shared_ptr<const tool_facts> now() const { return now_.load(); }

    // `change` applied to a copy of what is known, then published. A list fetched on one
    // thread and another fetched on another merge: each amends what the other published.
    template <class Change> void amend(Change&& change) {
        std::lock_guard lock(writer_);
        auto next = std::make_shared<tool_facts>(*now_.load());
        std::forward<Change>(change)(*next);
        now_.store(std::move(next));
    }

    // A reload's document (its snapshot's `version`): what the lists said is judged again at
    // the next list, once per version however many threads adopt it (a later thread must not
    // forget a judgement an earlier one already made under the new pins).
    void judge_again(std::uint64_t version) {
        std::lock_guard lock(writer_);
        if (version <= judged_for_)
            return;
        judged_for_ = version;
        auto next = std::make_shared<tool_facts>(*now_.load());
        next->tools.judge_again();
        now_.store(std::move(next));
        list_tried_.store(never, std::memory_order_release);
    }

    // When a call that needed the tools listed last started listing them, on any thread: an
    // upstream whose list fails is not asked for it on every call, and a reload's judging
    // again makes the next such call on every thread list first.
    std::chrono::steady_clock::time_point list_tried() const {
        return std::chrono::steady_clock::time_point(
            std::chrono::steady_clock::duration(list_tried_.load(std::memory_order_acquire)));
    }
    // While such a list is out on any thread, a call that needs it lists too (its thread's
    // calls wait for one flight, upstream_lists::list_first) rather than go on judged by no
    // list: after a reload, a `block` pin's changed tool would otherwise pass for a round trip.
    // Counted before the time is stored, and read after it: whoever sees the new time sees the
    // count.
    void listing_started(std::chrono::steady_clock::time_point now) {
        listing_.fetch_add(1, std::memory_order_relaxed);
        list_tried_.store(now.time_since_epoch().count(), std::memory_order_release);
    }
    // After what it said is published (upstream_requests::learn_tools), or it failed.
    void listing_landed() { listing_.fetch_sub(1, std::memory_order_release); }
    bool listing() const { return listing_.load(std::memory_order_acquire) > 0; }

private:
    static constexpr std::chrono::steady_clock::rep never = 0; // the clock's epoch, as `{}` was
    std::atomic<std::chrono::steady_clock::rep> list_tried_{never};
    std::atomic<int> listing_{0};
    std::mutex writer_;
    std::uint64_t judged_for_ = 0; // under writer_
    actors::published<const tool_facts> now_{std::make_shared<const tool_facts>()};
};

} // namespace gate::gateway
