// The durable state of gate-hooks behind one interface: SQLite (sqlite_store, the default)
// or PostgreSQL (postgres_store, several instances on one queue). Every call is scoped to an
// organization except the delivery worker's; calls block, so they run on the store actor's own
// thread.
#pragma once

#include "hooks/model.hpp"
#include "hooks/webhook_request.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gate::hooks {

struct ingested {
    std::string event_id;
    std::size_t deliveries = 0; // one per enabled webhook of that event and organization
};

struct dlq_page {
    std::vector<delivery> entries;
    std::optional<std::string> next_cursor;
};

// What one batch of a retention sweep (retention.hpp) deleted: finished deliveries and the
// attempts of their logs.
struct pruned_deliveries {
    std::size_t deliveries = 0;
    std::size_t attempts = 0;
};

// An event's place in the order a sweep walks the events in: by creation, then id.
struct event_key {
    std::int64_t created_ms = 0; // milliseconds since the epoch
    std::string id;
};

// One batch of the events' sweep: how many it looked at, how many it deleted, and the last
// it looked at (where the next batch starts).
struct pruned_events {
    std::size_t scanned = 0;
    std::size_t deleted = 0;
    std::optional<event_key> last;
};

class store {
public:
    virtual ~store() = default;

    virtual webhook create_webhook(const std::string& org, const webhook_spec& spec,
                                   clock_time now) = 0;
    virtual std::vector<webhook> list_webhooks(const std::string& org) = 0;
    virtual std::optional<webhook> get_webhook(const std::string& org, const std::string& id) = 0;
    // Applies every member of the patch or none; nullopt when there is no such webhook.
    // Switching it off holds its waiting deliveries, switching it on releases them, and either
    // clears the disabled reason. A new url or secret applies to every attempt from now on,
    // waiting deliveries included.
    virtual std::optional<webhook> update_webhook(const std::string& org, const std::string& id,
                                                  const webhook_patch& patch, clock_time now) = 0;
    std::optional<webhook> set_enabled(const std::string& org, const std::string& id, bool enabled,
                                       clock_time now) {
        return update_webhook(org, id, webhook_patch{.enabled = enabled}, now);
    }
    // Its deliveries go with it.
    virtual bool delete_webhook(const std::string& org, const std::string& id) = 0;

    // Stores the event and a pending delivery for each enabled webhook of its type, in one
    // transaction: once this returns, nothing is lost.
    virtual ingested ingest(const std::string& org, const std::string& type,
                            const std::string& data, clock_time now) = 0;

    // Up to `limit` deliveries due at `now` (pending and due, or delivering with a lapsed
    // lease: a crashed attempt), each leased until now + lease.
    virtual std::vector<due_delivery> claim_due(clock_time now, std::size_t limit,
                                                std::chrono::milliseconds lease) = 0;
    // An outcome also goes into its delivery's log of attempts (delivery_attempt), which keeps
    // the latest kept_attempts_per_delivery.
    virtual void record(const attempt_record& r) = 0;
    // Several outcomes in one transaction (the worker batches them).
    virtual void record_all(const std::vector<attempt_record>& rs) = 0;

    virtual std::vector<delivery> deliveries(const std::string& org, const std::string& webhook_id,
                                             std::size_t limit) = 0;
    // The webhook's latest `limit` attempts across its deliveries, the newest first (empty
    // for a webhook that is not the organization's).
    virtual std::vector<delivery_attempt>
    recent_attempts(const std::string& org, const std::string& webhook_id, std::size_t limit) = 0;
    // The delivery's kept attempts, the first first; nullopt when it is no delivery of the
    // organization's.
    virtual std::optional<std::vector<delivery_attempt>>
    attempts_of(const std::string& org, const std::string& delivery_id) = 0;

    virtual dlq_stats dead_letter_stats(const std::string& org, clock_time now) = 0;
    // Oldest first; `cursor` is the last entry's id of the previous page.
    virtual dlq_page dead_letters(const std::string& org, const dlq_filter& filter,
                                  const std::optional<std::string>& cursor, std::size_t limit) = 0;
    // The webhook's dead letters are due again now (one attempt each; success takes them
    // out of the queue). How many; nullopt when the webhook is not the organization's.
    virtual std::optional<std::size_t>
    retry_dead_letters(const std::string& org, const std::string& webhook_id, clock_time now) = 0;

    // The organization's queue and dead letters now, and its deliveries whose latest attempt
    // ended after `since`.
    virtual org_stats stats(const std::string& org, clock_time since) = 0;

    // Retention, across organizations; each call is one short transaction. Up to `limit`
    // finished deliveries (succeeded, or dead and not being retried) whose latest change (their
    // last attempt's end) is before `before`, the oldest first, with their logs of attempts.
    virtual pruned_deliveries prune_deliveries(clock_time before, std::size_t limit) = 0;
    // The next `limit` events created before `before`, after `after` in (created_at, id)
    // order, each deleted when no delivery refers to it any more.
    virtual pruned_events prune_events(clock_time before, const std::optional<event_key>& after,
                                       std::size_t limit) = 0;

    // Across organizations, for the metrics: deliveries waiting or in an attempt, and dead.
    virtual std::pair<std::int64_t, std::int64_t> depths() = 0;
};

// `path`: a file (created with its schema), or ":memory:".
std::unique_ptr<store> open_sqlite_store(const std::string& path);
// `url`: postgres://user@host:port/database (libpq's URL form); the schema is migrated.
std::unique_ptr<store> open_postgres_store(const std::string& url);
// A postgres:// or postgresql:// URL opens PostgreSQL, anything else is a SQLite file.
std::unique_ptr<store> open_store(const std::string& database);

} // namespace gate::hooks
