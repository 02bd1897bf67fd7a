// What gate-hooks stores: webhooks, the events ingested for them, and one delivery per
// (event, webhook) with its attempts. Plain data; the store (store.hpp) keeps it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gate::hooks {

using clock_time = std::chrono::system_clock::time_point;

struct webhook {
    std::string id; // hook_<hex>
    std::string organization;
    std::string event;
    std::string url;
    std::optional<std::string> secret;
    bool enabled = true;
    std::optional<std::string> disabled_reason; // e.g. the receiver answered 410
    clock_time created_at{};
    clock_time updated_at{};
};

// pending: waiting for its (next) attempt; delivering: an attempt holds it (until its lease
// ends); succeeded; dead: in the dead-letter queue.
enum class delivery_status { pending, delivering, succeeded, dead };
const char* to_string(delivery_status s);
std::optional<delivery_status> delivery_status_from(std::string_view s);

struct delivery {
    std::string id; // dlv_<hex>
    std::string webhook_id;
    std::string event_id;
    std::string organization;
    std::string event_type;
    delivery_status status = delivery_status::pending;
    int attempts = 0;
    clock_time next_attempt_at{};
    std::optional<int> last_status; // HTTP status of the last attempt
    std::optional<std::string> last_error;
    std::optional<std::string> response_body; // the receiver's, cut to 4 KiB
    clock_time created_at{};
    clock_time updated_at{};
    std::optional<clock_time> dead_at;
    bool dead_letter_retry = false; // an operator's retry from the queue: one attempt, then back
    std::optional<clock_time> last_attempt_at;    // when the latest attempt ended
    std::optional<std::int64_t> last_duration_ms; // how long it took, connect to answer
};

// One attempt of a delivery as kept in its log (GET /webhooks/{id}/attempts,
// GET /webhook-deliveries/{id}/attempts): how it ended and how long it took. Neither the
// receiver's body nor anything of the request (its body, its signature) is kept here.
struct delivery_attempt {
    std::string delivery_id;
    std::string webhook_id;
    int number = 0; // 1 for the delivery's first attempt
    clock_time ended_at{};
    std::optional<std::int64_t> duration_ms;
    std::optional<int> status;          // the receiver's HTTP status, when it answered
    std::optional<std::string> failure; // no answer: its kind (failure_kind.hpp)
};

// A delivery's log keeps its latest attempts up to this many: every attempt of any retry
// schedule (maxAttempts is at most 100), and only an operator's dead-letter retries beyond it
// push the oldest out. The log goes with its delivery.
inline constexpr int kept_attempts_per_delivery = 100;

// A delivery claimed for an attempt, with what the attempt needs.
struct due_delivery {
    delivery d;
    std::string url;
    std::optional<std::string> secret;
    std::string event_time; // RFC 3339
    std::string data;       // the event's data, JSON text
    std::string claim;      // this claim's token: only its outcome is recorded
};

// How one attempt ended.
struct attempt_result {
    std::optional<int> status;        // the HTTP status, when one came
    std::optional<std::string> error; // timeout, refused, TLS, blocked target ...
    std::optional<std::string> response_body;
    std::optional<std::int64_t> duration_ms; // from the attempt's start to its end
};

// What to do with a delivery after an attempt (decided by retry_policy).
struct attempt_record {
    std::string delivery_id;
    // The claim the attempt ran under. An attempt that outlived its lease (the delivery was
    // claimed again meanwhile) has its outcome ignored rather than overwrite the newer one.
    std::string claim;
    attempt_result result;
    delivery_status next = delivery_status::pending; // pending (retry), succeeded or dead
    clock_time next_attempt_at{};
    bool disable_webhook = false; // 410
    clock_time now{};
};

struct dlq_filter {
    std::optional<std::string> event_type;
    std::optional<std::string> webhook_id;
};

struct dlq_stats {
    struct by_type {
        std::string event_type;
        std::int64_t count = 0;
    };
    std::int64_t total = 0;
    std::vector<by_type> types;
    // Counts by how long entries have been in the queue: <1h, 1-24h, 1-7d, >7d.
    std::int64_t under_hour = 0, under_day = 0, under_week = 0, older = 0;
};

// One organization's deliveries at a glance (GET /stats). The window counts deliveries by
// their latest attempt: one that failed three times within it is one failure, and one whose
// latest attempt succeeded is not a failure at all.
struct org_stats {
    std::int64_t queue_depth = 0;  // pending (held ones included) or in an attempt
    std::int64_t dead_letters = 0; // in the dead-letter queue, those being retried included
    std::int64_t delivered = 0;    // latest attempt within the window succeeded
    std::int64_t failed = 0;       // latest attempt within the window failed
};

} // namespace gate::hooks
