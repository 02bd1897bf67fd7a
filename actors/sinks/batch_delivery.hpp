// What the actors that deliver batches over HTTP share (the audit sink's webhooks, the span
// sink's OTLP export): the messages between them and the io thread, which performs the POSTs
// (actors never see HTTP), and the plumbing over their batchers: post what is due, arm one
// timer for what is due next, settle what the io thread reports, log the transitions.
#pragma once

#include "actors/message_inspection.hpp"
#include "actors/reply.hpp"
#include "actors/sinks/batcher.hpp"

#include <atomic>
#include <boost/describe/class.hpp>
#include <caf/actor_cast.hpp>
#include <caf/actor_clock.hpp>
#include <caf/send.hpp>
#include <caf/weak_intrusive_ptr.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gate::actors {

// One POST of a batch, performed by the io thread.
struct batch_post {
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string content_type = "application/json";
    std::string body;
    // How it went; what failed, when it failed or was refused.
    reply_to<std::pair<batcher::result, std::string>> reply;
};
using batch_poster = std::function<void(batch_post)>;

// Internal to the delivering actors: a POST of target `target` settled; a timer fired.
struct batch_settled {
    std::size_t target = 0;
    batcher::result result = batcher::result::failed;
    std::string detail; // what failed, for the log
};
struct batch_wake {};

// A reload replaced the sink: it delivers what it was already given (batches get a grace
// period to go through), then stops.
struct batch_close {};
// gate is stopping: deliver what is buffered now, and say true once nothing is left. The
// caller bounds the wait.
struct batch_flush {
    reply_to<bool> reply;
};

// What a delivering sink has done, read by /metrics (the actor writes, scrapes read).
struct delivery_tally {
    std::atomic<std::int64_t> dropped{0};   // a buffer full, a refused batch, a sink gone
    std::atomic<std::int64_t> delivered{0}; // items the receivers accepted
    std::atomic<std::int64_t> failures{0};  // attempts that failed (and are retried)
};

// One destination: where its batches go, how each is wrapped, and its buffer.
struct batch_target {
    std::string what; // for the log: "audit webhook https://..."
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string head, tail; // around the batch's JSON array (an OTLP envelope)
    std::string id_header;  // carries the batch id when set (Idempotency-Key)
    batcher buffer;
};

class batch_targets {
public:
    using time_point = caf::actor_clock::time_point;

    std::vector<batch_target> list;

    // Posts every batch that is due; arms one timer (batch_wake) for the next, or `also`.
    template <class Self>
    void pump(Self* self, const batch_poster& post, std::optional<time_point> also = {}) {
        auto now = self->clock().now();
        auto next = also;
        for (std::size_t i = 0; i < list.size(); ++i) {
            auto& t = list[i];
            if (auto b = t.buffer.take(now))
                post(make_post(caf::actor_cast<caf::weak_actor_ptr>(self), i, std::move(*b)));
            if (auto due = t.buffer.next_due(); due && (!next || *due < *next))
                next = due;
        }
        if (next && (!wake_at_ || *next < *wake_at_ || *wake_at_ <= now)) {
            wake_at_ = next;
            self->delayed_send(self, *next > now ? *next - now : caf::timespan{0}, batch_wake{});
        }
    }
    // A timer fired at `now`.
    void woke(time_point now) {
        if (wake_at_ && *wake_at_ <= now)
            wake_at_.reset();
    }
    // Settles target `m.target`'s batch, counts it in `tally` and logs what changed.
    void settle(const batch_settled& m, time_point now, delivery_tally& tally);
    void close();
    bool idle() const;
    std::int64_t waiting() const;

private:
    batch_post make_post(caf::weak_actor_ptr self, std::size_t target, batcher::batch b) const;
    std::optional<time_point> wake_at_; // the earliest timer armed
};

// What a delivering sink actor does with its targets beyond its own items, the same for the
// audit sink and the span sink: a reload's close (deliver, within a grace, then stop), a
// shutdown's flush (deliver now, say when nothing is left), a settled POST, a timer.
class delivery_shell {
public:
    using time_point = caf::actor_clock::time_point;

    batch_targets targets;
    batch_poster post;
    std::shared_ptr<delivery_tally> tally = std::make_shared<delivery_tally>();
    std::chrono::steady_clock::duration close_grace = std::chrono::seconds(10);
    std::string what; // for the log line of what a close had to drop: "audit sink"

    template <class Self> void pump(Self* self) { targets.pump(self, post, close_by_); }
    template <class Self> void close(Self* self) {
        close_by_ = self->clock().now() + close_grace;
        targets.close();
        pump(self);
        finish_if_idle(self);
    }
    template <class Self> void flush(Self* self, reply_to<bool> reply) {
        flushes_.push_back(std::move(reply));
        targets.close();
        pump(self);
        finish_if_idle(self);
    }
    template <class Self> void settled(Self* self, const batch_settled& m) {
        targets.settle(m, self->clock().now(), *tally);
        pump(self);
        finish_if_idle(self);
    }
    template <class Self> void wake(Self* self) {
        auto now = self->clock().now();
        targets.woke(now);
        if (close_by_ && now >= *close_by_) {
            give_up();
            self->quit();
            return;
        }
        pump(self);
    }

private:
    template <class Self> void finish_if_idle(Self* self) {
        if (!targets.idle())
            return;
        for (auto& r : flushes_)
            r(true);
        flushes_.clear();
        if (close_by_)
            self->quit();
    }
    void give_up(); // the grace ended: what is left is dropped, counted and said

    std::optional<time_point> close_by_; // replaced by a reload: stop then
    std::vector<reply_to<bool>> flushes_;
};

BOOST_DESCRIBE_STRUCT(batch_settled, (), (target, result, detail))
BOOST_DESCRIBE_STRUCT(batch_wake, (), ())
BOOST_DESCRIBE_STRUCT(batch_close, (), ())
BOOST_DESCRIBE_STRUCT(batch_flush, (), (reply))

} // namespace gate::actors
