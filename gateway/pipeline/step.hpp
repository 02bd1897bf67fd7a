// What running a stage (or a stretch of the chain) gives back: the verdict, reached at once,
// or the coroutine that reaches it. Most stages decide most requests without waiting (a
// guard reads its lease, a policy decision is remembered, a name resolves against the
// snapshot), and a coroutine costs a frame and a resumption even when it never suspends: a
// ready step costs neither. Seastar's ready futures, for Asio's awaitables.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>

namespace gate::gateway::pipeline {

enum class verdict : std::uint8_t {
    proceed,  // the next stage runs
    answered, // ctx holds the answer; the stages after this one do not run, audit does
};

class step {
public:
    // Implicit both ways, so a stage writes `return verdict::proceed;` or `return later(ctx);`.
    step(verdict v) : ready_(v) {}              // NOLINT(google-explicit-constructor)
    step(boost::asio::awaitable<verdict> later) // NOLINT(google-explicit-constructor)
        : later_(std::move(later)) {}

    bool ready() const { return ready_.has_value(); }
    verdict value() const { return *ready_; }
    // The coroutine to await when not ready (once).
    boost::asio::awaitable<verdict> take() { return std::move(later_); }

private:
    std::optional<verdict> ready_;
    boost::asio::awaitable<verdict> later_;
};

} // namespace gate::gateway::pipeline
