#include "hooks/store_schema.hpp"

namespace gate::hooks {

namespace {

constexpr const char* sqlite_steps[] = {
    R"sql(
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  organization TEXT NOT NULL,
  event TEXT NOT NULL,
  url TEXT NOT NULL,
  secret TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX webhooks_by_event ON webhooks (organization, event, enabled);
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  organization TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id TEXT NOT NULL REFERENCES events (id),
  organization TEXT NOT NULL,
  event_type TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  lease_until INTEGER,
  last_status INTEGER,
  last_error TEXT,
  response_body TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  dead_at INTEGER,
  dead_letter_retry INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at);
CREATE INDEX deliveries_dead ON deliveries (organization, status, dead_at);
)sql",
    R"sql(
ALTER TABLE deliveries ADD COLUMN claim TEXT;
)sql",
    // A disabled webhook's waiting deliveries are held out of the index claims scan, so a
    // claim does not step over a backlog that cannot be sent; enabling it releases them.
    R"sql(
ALTER TABLE deliveries ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
CREATE INDEX deliveries_ready ON deliveries (next_attempt_at) WHERE status = 'pending' AND held = 0;
UPDATE deliveries SET held = 1
  WHERE status = 'pending' AND webhook_id IN (SELECT id FROM webhooks WHERE enabled = 0);
)sql",
    // The latest attempt's end and duration, for the console's recent attempts and the
    // organization's rates (GET /stats), which count the window's attempts by this index.
    R"sql(
ALTER TABLE deliveries ADD COLUMN last_attempt_at INTEGER;
ALTER TABLE deliveries ADD COLUMN last_duration_ms INTEGER;
CREATE INDEX deliveries_recent ON deliveries (organization, last_attempt_at)
  WHERE last_attempt_at IS NOT NULL;
)sql",
    // Every attempt's outcome, not only the latest: a delivery's log (by its primary key, in
    // attempt order) and a webhook's recent attempts (delivery_attempts_recent). Bounded: at
    // most kept_attempts_per_delivery per delivery, and gone with the delivery.
    R"sql(
CREATE TABLE delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  webhook_id TEXT NOT NULL,
  ended_at INTEGER NOT NULL,
  duration_ms INTEGER,
  status INTEGER,
  failure TEXT,
  PRIMARY KEY (delivery_id, number)
) WITHOUT ROWID;
CREATE INDEX delivery_attempts_recent ON delivery_attempts (webhook_id, ended_at, delivery_id,
  number);
)sql",
    // Retention (retention.hpp): finished deliveries by their last change, partial so that it
    // is as large as what the sweep may delete and the queue's rows never enter it; events by
    // age, for the walk over them; deliveries by event, so "does any delivery refer to this
    // event" (and the foreign key's own check when an event is deleted) reads an index, not
    // the table.
    R"sql(
CREATE INDEX deliveries_finished ON deliveries (updated_at)
  WHERE status IN ('succeeded', 'dead');
CREATE INDEX deliveries_by_event ON deliveries (event_id);
CREATE INDEX events_by_age ON events (created_at, id);
)sql",
};

constexpr const char* postgres_steps[] = {
    R"sql(
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  organization TEXT NOT NULL,
  event TEXT NOT NULL,
  url TEXT NOT NULL,
  secret TEXT,
  enabled BOOLEAN NOT NULL DEFAULT TRUE,
  disabled_reason TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX webhooks_by_event ON webhooks (organization, event, enabled);
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  organization TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id TEXT NOT NULL REFERENCES events (id),
  organization TEXT NOT NULL,
  event_type TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT,
  last_status INTEGER,
  last_error TEXT,
  response_body TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  dead_at BIGINT,
  dead_letter_retry BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at);
CREATE INDEX deliveries_dead ON deliveries (organization, status, dead_at);
)sql",
    R"sql(
ALTER TABLE deliveries ADD COLUMN claim TEXT;
)sql",
    // Partial indexes: an update inserts an entry only into the indexes whose predicate the
    // new row meets, so a claim or a success no longer writes to the queue's indexes, and
    // the depths and the dead-letter queue are counted from indexes as large as themselves.
    R"sql(
DROP INDEX deliveries_due;
DROP INDEX deliveries_dead;
CREATE INDEX deliveries_pending ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_leased ON deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX deliveries_dead ON deliveries (organization, dead_at)
  WHERE status = 'dead' OR dead_letter_retry;
)sql",
    // A disabled webhook's waiting deliveries are held out of the due index, so a claim does
    // not scan past a backlog that cannot be sent; enabling the webhook releases them.
    R"sql(
ALTER TABLE deliveries ADD COLUMN held BOOLEAN NOT NULL DEFAULT FALSE;
DROP INDEX deliveries_pending;
CREATE INDEX deliveries_pending ON deliveries (next_attempt_at)
  WHERE status = 'pending' AND NOT held;
CREATE INDEX deliveries_held ON deliveries (webhook_id) WHERE status = 'pending' AND held;
UPDATE deliveries d SET held = TRUE FROM webhooks w
  WHERE w.id = d.webhook_id AND d.status = 'pending' AND NOT w.enabled;
)sql",
    // The latest attempt's end and duration, for the console's recent attempts and the
    // organization's rates (GET /stats). Both indexes are partial: the queue's rows by
    // organization (its depth), and the attempted rows by organization and time (the window).
    R"sql(
ALTER TABLE deliveries ADD COLUMN last_attempt_at BIGINT, ADD COLUMN last_duration_ms INTEGER;
CREATE INDEX deliveries_queued ON deliveries (organization)
  WHERE status IN ('pending', 'delivering');
CREATE INDEX deliveries_recent ON deliveries (organization, last_attempt_at)
  WHERE last_attempt_at IS NOT NULL;
)sql",
    // Every attempt's outcome, as in SQLite's fifth step.
    R"sql(
CREATE TABLE delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  webhook_id TEXT NOT NULL,
  ended_at BIGINT NOT NULL,
  duration_ms INTEGER,
  status INTEGER,
  failure TEXT,
  PRIMARY KEY (delivery_id, number)
);
CREATE INDEX delivery_attempts_recent ON delivery_attempts (webhook_id, ended_at, delivery_id,
  number);
)sql",
    // Retention, as in SQLite's sixth step.
    R"sql(
CREATE INDEX deliveries_finished ON deliveries (updated_at)
  WHERE status IN ('succeeded', 'dead');
CREATE INDEX deliveries_by_event ON deliveries (event_id);
CREATE INDEX events_by_age ON events (created_at, id);
)sql",
};

} // namespace

std::span<const char* const> sqlite_migrations() {
    return sqlite_steps;
}

std::span<const char* const> postgres_migrations() {
    return postgres_steps;
}

} // namespace gate::hooks
