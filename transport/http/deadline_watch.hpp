// The deadlines of an io_context's socket operations, kept by one coarse timer
// (deadline_table): the timer fires at the earliest armed deadline, at most once per
// `resolution`, so a deadline is kept to within `resolution` late, and arming one for a read
// or a write costs a table slot instead of a timer of its own. Only the thread that runs the
// io_context uses it (gate runs each io_context on one thread).
#pragma once

#include "transport/http/deadline_table.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <optional>

namespace gate::transport {

class deadline_watch : public boost::asio::execution_context::service {
public:
    using key_type = deadline_watch;
    static inline boost::asio::execution_context::id id;
    using clock = deadline_table::clock;
    static constexpr auto resolution = std::chrono::milliseconds(20);

    explicit deadline_watch(boost::asio::execution_context& ctx) : service(ctx) {}
    // The watch of the io_context `ex` runs on.
    static deadline_watch& of(const boost::asio::any_io_executor& ex);

    // An armed deadline: disarmed when it is destroyed or disarm() is called, unless it
    // fired first. Move-only.
    class guard {
    public:
        guard() = default;
        guard(deadline_watch* w, deadline_table::handle h) : w_(w), h_(h) {}
        guard(guard&& o) noexcept : w_(std::exchange(o.w_, nullptr)), h_(o.h_) {}
        guard& operator=(guard&& o) noexcept {
            if (this != &o) {
                disarm();
                w_ = std::exchange(o.w_, nullptr);
                h_ = o.h_;
            }
            return *this;
        }
        guard(const guard&) = delete;
        guard& operator=(const guard&) = delete;
        ~guard() { disarm(); }
        void disarm() {
            if (auto* w = std::exchange(w_, nullptr))
                w->table_.disarm(h_);
        }

    private:
        deadline_watch* w_ = nullptr;
        deadline_table::handle h_;
    };

    // `on_expiry` runs on the io thread once `deadline` has passed, unless disarmed first.
    [[nodiscard]] guard arm(clock::time_point deadline, std::function<void()> on_expiry);
    std::size_t armed() const { return table_.armed(); }

private:
    void shutdown() override;
    void schedule(clock::time_point at);
    void fire();

    deadline_table table_;
    std::optional<boost::asio::steady_timer> timer_;
    std::optional<clock::time_point> timer_at_; // when the timer is set to fire, if it is
};

} // namespace gate::transport
