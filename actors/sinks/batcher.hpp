// What a sink that delivers in batches decides (the audit webhook sink, spec: Audit events,
// "asynchronous and batched"; trace export, spec: Traces, "batched off the request path"), as
// plain C++ over an injected `now`: which items wait, when a batch leaves, what a failed
// delivery means, and what is dropped. Actors are shells over it (actors/sinks/batch_delivery); the
// io thread performs the POST and reports how it went.
//
// Decisions (docs/operations.md, Audit webhook sink): a batch is up to `batch` items, sent as
// one JSON array once `batch` are waiting or the oldest has waited `linger`; one batch is in
// flight at a time, so items arrive in order. A receiver that fails (connection error,
// timeout, 408, 429, 5xx) gets the same batch again, with the same idempotency key, after a
// backoff doubling from `first_backoff` to `max_backoff`, for as long as it fails: the buffer,
// not a retry count, bounds what is kept, and items that find it full are dropped and counted.
// A receiver that refuses the batch (any other status) will refuse it again: it is dropped,
// counted, and the next batch goes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace gate::actors {

class batcher {
public:
    using clock = std::chrono::steady_clock;

    struct limits {
        std::size_t buffer = 10000; // events held, the one in flight included
        std::size_t batch = 100;    // events per POST
        clock::duration linger = std::chrono::milliseconds(200);
        clock::duration first_backoff = std::chrono::milliseconds(500);
        clock::duration max_backoff = std::chrono::seconds(30);
    };

    struct batch {
        std::string id;   // the idempotency key: the same on every attempt of this batch
        std::string body; // a JSON array of audit events
        std::size_t events = 0;
        int attempt = 1;
    };

    // How a delivery went, as the io thread saw it.
    enum class result { delivered, failed, refused };
    // What a settled delivery changed, for the one log line a person needs.
    enum class transition { none, outage_began, recovered, refused };

    batcher(std::string id_prefix, limits l);

    // False when the buffer is full: the event is dropped (and counted).
    bool add(std::string event_json, clock::time_point now);
    // The batch to send now, if one is due and none is in flight.
    std::optional<batch> take(clock::time_point now);
    // The in-flight batch went as `r` says.
    transition settle(result r, clock::time_point now);
    // When take() may next have something, if it may (none while a batch is in flight).
    std::optional<clock::time_point> next_due() const;
    // Closing: partial batches leave at once (a reload replaced the sink, or gate stops).
    void close() { closing_ = true; }
    bool idle() const { return waiting_.empty(); }

    std::size_t waiting() const { return waiting_.size(); }
    std::int64_t dropped() const { return dropped_; }
    std::int64_t delivered() const { return delivered_; }
    std::int64_t failures() const { return failures_; }

private:
    struct entry {
        clock::time_point at;
        std::string json;
    };

    limits limits_;
    std::string prefix_;
    std::deque<entry> waiting_;
    std::optional<batch> in_flight_; // kept until it settles; resent as it was
    std::optional<batch> retry_;     // failed, due again at retry_at_
    clock::time_point retry_at_{};
    std::uint64_t sequence_ = 0;
    clock::duration backoff_{};
    bool closing_ = false;
    bool failing_ = false; // since the last delivery that went through
    std::int64_t dropped_ = 0;
    std::int64_t delivered_ = 0;
    std::int64_t failures_ = 0;
};

} // namespace gate::actors
