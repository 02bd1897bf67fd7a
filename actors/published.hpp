// A pointer one side publishes and the other reads on every request: the actors' directory,
// an upstream's guard view. A pthread mutex around the copy cost a request about 60
// instructions per read, and libstdc++ 12's std::atomic<std::shared_ptr> releases its lock
// with a relaxed store after reading the pointer (a race as the memory model and
// ThreadSanitizer see it). Here a spin flag taken with acquire and released with release
// guards the copy: a pointer and a count, a few instructions; writers are rare.
#pragma once

#include <atomic>
#include <memory>
#include <thread>

namespace gate::actors {

template <class T> class published {
public:
    published() = default;
    explicit published(std::shared_ptr<T> value) : value_(std::move(value)) {}
    published(const published&) = delete;
    published& operator=(const published&) = delete;

    std::shared_ptr<T> load() const {
        hold();
        auto copy = value_;
        busy_.clear(std::memory_order_release);
        return copy;
    }
    // The value replaced is released after the flag, outside it.
    void store(std::shared_ptr<T> value) {
        hold();
        value_.swap(value);
        busy_.clear(std::memory_order_release);
    }

private:
    void hold() const {
        for (int spins = 0; busy_.test_and_set(std::memory_order_acquire); ++spins)
            if (spins >= 64) // the holder was preempted: let it run
                std::this_thread::yield();
    }

    mutable std::atomic_flag busy_;
    std::shared_ptr<T> value_;
};

} // namespace gate::actors
