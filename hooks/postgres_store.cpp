// The PostgreSQL store: several gate-hooks instances share one queue. A claim takes due rows
// with FOR UPDATE SKIP LOCKED and leases them, so no delivery is attempted by two instances
// at once; migrations run under an advisory lock, so instances starting together do not race.
// One connection, used only from the store actor's thread.
#include "hooks/failure_kind.hpp"
#include "hooks/postgres_result.hpp"
#include "hooks/postgres_retention.hpp"
#include "hooks/store.hpp"
#include "hooks/store_schema.hpp"
#include "protocol/random_id.hpp"
#include "protocol/utc_timestamp.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <libpq-fe.h>
#include <stdexcept>
#include <unordered_map>

namespace gate::hooks {

namespace {

using pg::p;
using pg::param;
using pg::result;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

std::int64_t ms(clock_time t) {
    return duration_cast<milliseconds>(t.time_since_epoch()).count();
}
clock_time at(std::int64_t v) {
    return clock_time(milliseconds(v));
}

constexpr const char* webhook_columns =
    "id, organization, event, url, secret, enabled, disabled_reason, created_at, updated_at";

webhook read_webhook(const result& r, int row) {
    webhook w;
    w.id = r.text(row, 0);
    w.organization = r.text(row, 1);
    w.event = r.text(row, 2);
    w.url = r.text(row, 3);
    w.secret = r.opt_text(row, 4);
    w.enabled = r.boolean(row, 5);
    w.disabled_reason = r.opt_text(row, 6);
    w.created_at = at(r.integer(row, 7));
    w.updated_at = at(r.integer(row, 8));
    return w;
}

constexpr const char* delivery_columns =
    "d.id, d.webhook_id, d.event_id, d.organization, d.event_type, d.status, d.attempts, "
    "d.next_attempt_at, d.last_status, d.last_error, d.response_body, d.created_at, "
    "d.updated_at, d.dead_at, d.dead_letter_retry, d.last_attempt_at, d.last_duration_ms";
constexpr int delivery_column_count = 17;

delivery read_delivery(const result& r, int row) {
    delivery d;
    d.id = r.text(row, 0);
    d.webhook_id = r.text(row, 1);
    d.event_id = r.text(row, 2);
    d.organization = r.text(row, 3);
    d.event_type = r.text(row, 4);
    d.status = delivery_status_from(r.text(row, 5)).value_or(delivery_status::pending);
    d.attempts = static_cast<int>(r.integer(row, 6));
    d.next_attempt_at = at(r.integer(row, 7));
    if (auto v = r.opt_integer(row, 8))
        d.last_status = static_cast<int>(*v);
    d.last_error = r.opt_text(row, 9);
    d.response_body = r.opt_text(row, 10);
    d.created_at = at(r.integer(row, 11));
    d.updated_at = at(r.integer(row, 12));
    if (auto v = r.opt_integer(row, 13))
        d.dead_at = at(*v);
    d.dead_letter_retry = r.boolean(row, 14);
    if (auto v = r.opt_integer(row, 15))
        d.last_attempt_at = at(*v);
    d.last_duration_ms = r.opt_integer(row, 16);
    return d;
}

constexpr const char* attempt_columns =
    "a.delivery_id, a.webhook_id, a.number, a.ended_at, a.duration_ms, a.status, a.failure";

delivery_attempt read_attempt(const result& r, int row) {
    delivery_attempt a;
    a.delivery_id = r.text(row, 0);
    a.webhook_id = r.text(row, 1);
    a.number = static_cast<int>(r.integer(row, 2));
    a.ended_at = at(r.integer(row, 3));
    a.duration_ms = r.opt_integer(row, 4);
    if (auto v = r.opt_integer(row, 5))
        a.status = static_cast<int>(*v);
    a.failure = r.opt_text(row, 6);
    return a;
}

// Why a receiver's 410 switched its webhook off.
constexpr const char* gone_reason = "'the receiver answered 410 Gone'";

// An outcome that puts a delivery back to waiting holds it when its webhook is disabled. The
// webhook's row is read again under a share lock in that case only (rare: an attempt that
// was in flight when the webhook was switched off), so an enable racing with this outcome
// either commits first and is seen, or waits for this commit and then releases the row.
constexpr const char* held_if_disabled =
    "CASE WHEN u.status = 'pending' AND NOT (SELECT enabled FROM webhooks WHERE id = "
    "d.webhook_id) THEN NOT COALESCE((SELECT enabled FROM webhooks WHERE id = d.webhook_id "
    "FOR SHARE), FALSE) ELSE FALSE END";

// A batch of outcomes ($1, a JSON array) as one statement: each outcome under its claim
// updates its delivery (done), goes into the delivery's log (logged), whose entries beyond the
// latest kept_attempts_per_delivery go (pruned; the number only grows), and a 410 switches its
// webhook off; the webhooks switched off are returned. An outcome under a stale claim (a newer
// attempt owns the delivery) matches no row and changes nothing, its log and webhook included.
const std::string& record_sql() {
    static const std::string kept = std::to_string(kept_attempts_per_delivery);
    static const std::string sql =
        std::string("WITH u AS (SELECT * FROM json_to_recordset($1::json) AS u(id TEXT, claim "
                    "TEXT, status TEXT, next_at BIGINT, now BIGINT, last_status INTEGER, "
                    "last_error TEXT, body TEXT, disable BOOLEAN, duration_ms INTEGER, failure "
                    "TEXT)), done AS (UPDATE deliveries d SET status = u.status, attempts = "
                    "d.attempts + 1, next_attempt_at = u.next_at, lease_until = NULL, claim = "
                    "NULL, last_status = u.last_status, last_error = u.last_error, "
                    "response_body = u.body, updated_at = u.now, last_attempt_at = u.now, "
                    "last_duration_ms = u.duration_ms, dead_at = CASE WHEN u.status = 'dead' "
                    "THEN COALESCE(d.dead_at, u.now) ELSE NULL END, dead_letter_retry = FALSE, "
                    "held = ") +
        held_if_disabled +
        " FROM u WHERE d.id = ANY(ARRAY(SELECT id FROM u)) AND d.id = u.id AND d.claim = "
        "u.claim RETURNING d.id, d.webhook_id, d.attempts, u.disable, u.now, u.duration_ms, "
        "u.last_status, u.failure), logged AS (INSERT INTO delivery_attempts (delivery_id, "
        "number, webhook_id, ended_at, duration_ms, status, failure) SELECT id, attempts, "
        "webhook_id, now, duration_ms, last_status, failure FROM done), pruned AS (DELETE FROM "
        "delivery_attempts a USING done WHERE done.attempts > " +
        kept + " AND a.delivery_id = done.id AND a.number <= done.attempts - " + kept +
        ") UPDATE webhooks w SET enabled = FALSE, disabled_reason = " + gone_reason +
        ", updated_at = done.now FROM done WHERE done.disable AND w.id = done.webhook_id "
        "RETURNING w.id";
    return sql;
}

std::string new_id(std::string_view prefix) {
    return std::string(prefix) + protocol::random_id().substr(0, 24);
}

class postgres_store final : public store {
public:
    explicit postgres_store(const std::string& url) : conn_(PQconnectdb(url.c_str())) {
        if (PQstatus(conn_) != CONNECTION_OK) {
            std::string why = PQerrorMessage(conn_);
            PQfinish(conn_);
            throw std::runtime_error("cannot connect to PostgreSQL: " + why);
        }
        configure();
        migrate();
    }
    ~postgres_store() override { PQfinish(conn_); }

    webhook create_webhook(const std::string& org, const webhook_spec& spec,
                           clock_time now) override {
        webhook w;
        w.id = new_id("hook_");
        w.organization = org;
        w.event = spec.event;
        w.url = spec.url;
        w.secret = spec.secret;
        w.created_at = w.updated_at = now;
        run("INSERT INTO webhooks (id, organization, event, url, secret, enabled, created_at, "
            "updated_at) VALUES ($1, $2, $3, $4, $5, TRUE, $6, $6)",
            {p(w.id), p(org), p(w.event), p(w.url), p(w.secret), p(ms(now))});
        return w;
    }

    std::vector<webhook> list_webhooks(const std::string& org) override {
        auto r = run(std::string("SELECT ") + webhook_columns +
                         " FROM webhooks WHERE organization = $1 ORDER BY created_at, id",
                     {p(org)});
        std::vector<webhook> out;
        for (int i = 0; i < r->rows(); ++i)
            out.push_back(read_webhook(*r, i));
        return out;
    }

    std::optional<webhook> get_webhook(const std::string& org, const std::string& id) override {
        auto r = run(std::string("SELECT ") + webhook_columns +
                         " FROM webhooks WHERE organization = $1 AND id = $2",
                     {p(org), p(id)});
        if (r->rows() == 0)
            return std::nullopt;
        return read_webhook(*r, 0);
    }

    std::optional<webhook> update_webhook(const std::string& org, const std::string& id,
                                          const webhook_patch& patch, clock_time now) override {
        // Two statements when the switch moves: the second's snapshot sees every outcome
        // committed while the first waited for the webhook's row (an outcome that read the
        // webhook as disabled locks that row until it commits; see record_all), so no delivery
        // stays held once enabled.
        transaction tx(*this);
        if (run("UPDATE webhooks SET url = COALESCE($1, url), secret = CASE WHEN $2::boolean "
                "THEN $3 ELSE secret END, enabled = COALESCE($4::boolean, enabled), "
                "disabled_reason = CASE WHEN $4::boolean IS NULL THEN disabled_reason END, "
                "updated_at = $5 WHERE organization = $6 AND id = $7",
                {p(patch.url), p(patch.secret.has_value()), p(patch.secret.value_or(std::nullopt)),
                 patch.enabled ? p(*patch.enabled) : param(), p(ms(now)), p(org), p(id)})
                ->affected() == 0)
            return std::nullopt;
        if (patch.enabled == true)
            run("UPDATE deliveries SET held = FALSE WHERE webhook_id = $1 AND status = "
                "'pending' AND held",
                {p(id)});
        else if (patch.enabled == false)
            hold({id});
        tx.commit();
        return get_webhook(org, id);
    }

    bool delete_webhook(const std::string& org, const std::string& id) override {
        return run("DELETE FROM webhooks WHERE organization = $1 AND id = $2", {p(org), p(id)})
                   ->affected() > 0;
    }

    ingested ingest(const std::string& org, const std::string& type, const std::string& data,
                    clock_time now) override {
        ingested out;
        out.event_id = new_id("evt_");
        // One statement: the event and its deliveries commit together.
        auto r = run("WITH e AS (INSERT INTO events (id, organization, type, data, created_at) "
                     "VALUES ($1, $2, $3, $4, $5) RETURNING id), "
                     "d AS (INSERT INTO deliveries (id, webhook_id, event_id, organization, "
                     "event_type, status, next_attempt_at, created_at, updated_at) "
                     "SELECT 'dlv_' || substr(md5(random()::text || clock_timestamp()::text || "
                     "w.id), 1, 24), w.id, e.id, $2, $3, 'pending', $5, $5, $5 FROM webhooks w, "
                     "e WHERE w.organization = $2 AND w.event = $3 AND w.enabled RETURNING 1) "
                     "SELECT count(*) FROM d",
                     {p(out.event_id), p(org), p(type), p(data), p(ms(now))});
        out.deliveries = static_cast<std::size_t>(r->integer(0, 0));
        return out;
    }

    std::vector<due_delivery> claim_due(clock_time now, std::size_t limit,
                                        std::chrono::milliseconds lease) override {
        // A disabled webhook's deliveries wait, held out of the pending index, until it is
        // enabled again; the EXISTS catches the few an outcome committed while it was being
        // disabled. Due rows are found by two ordered index scans that stop at the limit (an
        // OR of both conditions made every claim sort the whole backlog); the rows are then
        // reached by primary key (= ANY) and joined to their webhook and event. One claim
        // token for the batch: it only has to tell this claim from the next claim of a row.
        auto r = run(std::string("WITH lapsed AS (SELECT id FROM deliveries l WHERE status = "
                                 "'delivering' AND lease_until <= $1 AND EXISTS (SELECT 1 FROM "
                                 "webhooks w WHERE w.id = l.webhook_id AND w.enabled) ORDER BY "
                                 "lease_until LIMIT $2 FOR UPDATE SKIP LOCKED), "
                                 "pending AS (SELECT id FROM deliveries p WHERE status = "
                                 "'pending' AND NOT held AND next_attempt_at <= $1 AND EXISTS "
                                 "(SELECT 1 FROM webhooks w WHERE w.id = p.webhook_id AND "
                                 "w.enabled) ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP "
                                 "LOCKED) UPDATE deliveries d SET status = 'delivering', "
                                 "lease_until = $3, claim = $4, updated_at = $1 FROM webhooks w, "
                                 "events e WHERE d.id = ANY(ARRAY(SELECT id FROM lapsed UNION "
                                 "ALL SELECT id FROM pending LIMIT $2)) AND w.id = d.webhook_id "
                                 "AND e.id = d.event_id RETURNING ") +
                         delivery_columns + ", w.url, w.secret, e.created_at, e.data, d.claim",
                     {p(ms(now)), p(static_cast<std::int64_t>(limit)), p(ms(now + lease)),
                      p(protocol::random_id())});
        std::vector<due_delivery> out;
        for (int i = 0; i < r->rows(); ++i) {
            due_delivery due;
            due.d = read_delivery(*r, i);
            constexpr int n = delivery_column_count;
            due.url = r->text(i, n);
            due.secret = r->opt_text(i, n + 1);
            due.event_time = protocol::utc_timestamp(at(r->integer(i, n + 2)));
            due.data = r->text(i, n + 3);
            due.claim = r->text(i, n + 4);
            out.push_back(std::move(due));
        }
        return out;
    }

    void record_all(const std::vector<attempt_record>& rs) override {
        // One statement for the whole batch (record_sql): a round trip per outcome was the
        // store's limit.
        boost::json::array batch;
        batch.reserve(rs.size());
        bool disables = false;
        for (const auto& rec : rs) {
            boost::json::object o;
            o["id"] = rec.delivery_id;
            o["claim"] = rec.claim;
            o["status"] = to_string(rec.next);
            o["next_at"] = ms(rec.next_attempt_at);
            o["now"] = ms(rec.now);
            if (rec.result.status)
                o["last_status"] = *rec.result.status;
            if (rec.result.error)
                o["last_error"] = *rec.result.error;
            if (rec.result.response_body)
                o["body"] = *rec.result.response_body;
            if (rec.result.duration_ms)
                o["duration_ms"] = *rec.result.duration_ms;
            if (auto failure = attempt_failure(rec.result))
                o["failure"] = *failure;
            o["disable"] = rec.disable_webhook;
            disables = disables || rec.disable_webhook;
            batch.push_back(std::move(o));
        }
        const auto& sql = record_sql();
        if (!disables) {
            run(sql, {p(boost::json::serialize(batch))});
            return;
        }
        // A 410 switched webhooks off: their other waiting deliveries are held with it.
        transaction tx(*this);
        auto off = run(sql, {p(boost::json::serialize(batch))});
        std::vector<std::string> ids;
        for (int i = 0; i < off->rows(); ++i)
            ids.push_back(off->text(i, 0));
        hold(ids);
        tx.commit();
    }

    void record(const attempt_record& rec) override { record_all({rec}); }

    std::vector<delivery_attempt> recent_attempts(const std::string& org,
                                                  const std::string& webhook_id,
                                                  std::size_t limit) override {
        auto r = run(std::string("SELECT ") + attempt_columns +
                         " FROM delivery_attempts a WHERE a.webhook_id = $1 AND EXISTS (SELECT 1 "
                         "FROM webhooks w WHERE w.id = $1 AND w.organization = $2) ORDER BY "
                         "a.ended_at DESC, a.delivery_id DESC, a.number DESC LIMIT $3",
                     {p(webhook_id), p(org), p(static_cast<std::int64_t>(limit))});
        std::vector<delivery_attempt> out;
        for (int i = 0; i < r->rows(); ++i)
            out.push_back(read_attempt(*r, i));
        return out;
    }

    std::optional<std::vector<delivery_attempt>>
    attempts_of(const std::string& org, const std::string& delivery_id) override {
        if (run("SELECT 1 FROM deliveries WHERE id = $1 AND organization = $2",
                {p(delivery_id), p(org)})
                ->rows() == 0)
            return std::nullopt;
        auto r = run(std::string("SELECT ") + attempt_columns +
                         " FROM delivery_attempts a WHERE a.delivery_id = $1 ORDER BY a.number",
                     {p(delivery_id)});
        std::vector<delivery_attempt> out;
        for (int i = 0; i < r->rows(); ++i)
            out.push_back(read_attempt(*r, i));
        return out;
    }

    std::vector<delivery> deliveries(const std::string& org, const std::string& webhook_id,
                                     std::size_t limit) override {
        auto r = run(std::string("SELECT ") + delivery_columns +
                         " FROM deliveries d WHERE d.organization = $1 AND d.webhook_id = $2 "
                         "ORDER BY d.created_at DESC, d.id DESC LIMIT $3",
                     {p(org), p(webhook_id), p(static_cast<std::int64_t>(limit))});
        std::vector<delivery> out;
        for (int i = 0; i < r->rows(); ++i)
            out.push_back(read_delivery(*r, i));
        return out;
    }

    dlq_stats dead_letter_stats(const std::string& org, clock_time now) override {
        dlq_stats out;
        auto r = run("SELECT event_type, count(*) FROM deliveries WHERE organization = $1 AND "
                     "(status = 'dead' OR dead_letter_retry) GROUP BY event_type ORDER BY "
                     "event_type",
                     {p(org)});
        for (int i = 0; i < r->rows(); ++i) {
            out.types.push_back({r->text(i, 0), r->integer(i, 1)});
            out.total += r->integer(i, 1);
        }
        using namespace std::chrono_literals;
        auto a = run("SELECT count(*) FILTER (WHERE dead_at > $1), count(*) FILTER (WHERE "
                     "dead_at <= $1 AND dead_at > $2), count(*) FILTER (WHERE dead_at <= $2 AND "
                     "dead_at > $3), count(*) FILTER (WHERE dead_at <= $3) FROM deliveries "
                     "WHERE organization = $4 AND (status = 'dead' OR dead_letter_retry)",
                     {p(ms(now - 1h)), p(ms(now - 24h)), p(ms(now - 168h)), p(org)});
        out.under_hour = a->integer(0, 0);
        out.under_day = a->integer(0, 1);
        out.under_week = a->integer(0, 2);
        out.older = a->integer(0, 3);
        return out;
    }

    dlq_page dead_letters(const std::string& org, const dlq_filter& filter,
                          const std::optional<std::string>& cursor, std::size_t limit) override {
        auto r = run(std::string("SELECT ") + delivery_columns +
                         " FROM deliveries d WHERE d.organization = $1 AND (d.status = 'dead' "
                         "OR d.dead_letter_retry) AND ($2::text IS NULL OR d.event_type = $2) "
                         "AND ($3::text IS NULL OR d.webhook_id = $3) AND ($4::text IS NULL OR "
                         "(d.dead_at, d.id) > (SELECT dead_at, id FROM deliveries WHERE id = "
                         "$4)) ORDER BY d.dead_at, d.id LIMIT $5",
                     {p(org), p(filter.event_type), p(filter.webhook_id), p(cursor),
                      p(static_cast<std::int64_t>(limit + 1))});
        dlq_page page;
        for (int i = 0; i < r->rows(); ++i)
            page.entries.push_back(read_delivery(*r, i));
        if (page.entries.size() > limit) {
            page.entries.pop_back();
            page.next_cursor = page.entries.back().id;
        }
        return page;
    }

    std::optional<std::size_t> retry_dead_letters(const std::string& org,
                                                  const std::string& webhook_id,
                                                  clock_time now) override {
        if (!get_webhook(org, webhook_id))
            return std::nullopt;
        return static_cast<std::size_t>(
            run("UPDATE deliveries SET status = 'pending', next_attempt_at = $1, "
                "dead_letter_retry = TRUE, updated_at = $1, held = NOT COALESCE((SELECT "
                "enabled FROM webhooks WHERE id = $3 FOR SHARE), FALSE) WHERE organization = "
                "$2 AND webhook_id = $3 AND status = 'dead'",
                {p(ms(now)), p(org), p(webhook_id)})
                ->affected());
    }

    org_stats stats(const std::string& org, clock_time since) override {
        // Each count from a partial index no larger than what it counts: deliveries_queued,
        // deliveries_dead and, for the window, deliveries_recent.
        auto r = run("SELECT (SELECT count(*) FROM deliveries WHERE organization = $1 AND status "
                     "IN ('pending', 'delivering')), (SELECT count(*) FROM deliveries WHERE "
                     "organization = $1 AND (status = 'dead' OR dead_letter_retry)), count(*) "
                     "FILTER (WHERE status = 'succeeded'), count(*) FILTER (WHERE status <> "
                     "'succeeded') FROM deliveries WHERE organization = $1 AND last_attempt_at "
                     "IS NOT NULL AND last_attempt_at > $2",
                     {p(org), p(ms(since))});
        return {r->integer(0, 0), r->integer(0, 1), r->integer(0, 2), r->integer(0, 3)};
    }

    pruned_deliveries prune_deliveries(clock_time before, std::size_t limit) override {
        return pg::prune_deliveries(runner(), before, limit);
    }

    pruned_events prune_events(clock_time before, const std::optional<event_key>& after,
                               std::size_t limit) override {
        return pg::prune_events(runner(), before, after, limit);
    }

    std::pair<std::int64_t, std::int64_t> depths() override {
        auto r = run("SELECT (SELECT count(*) FROM deliveries WHERE status = 'pending' AND NOT "
                     "held) + (SELECT count(*) FROM deliveries WHERE status = 'pending' AND "
                     "held) + (SELECT count(*) FROM deliveries WHERE status = 'delivering'), "
                     "(SELECT count(*) FROM deliveries WHERE status = 'dead' OR "
                     "dead_letter_retry)");
        return {r->integer(0, 0), r->integer(0, 1)};
    }

private:
    // Commits when told to, rolls back otherwise (an exception, an early return).
    class transaction {
    public:
        explicit transaction(postgres_store& s) : s_(s) { s_.run("BEGIN"); }
        transaction(const transaction&) = delete;
        transaction& operator=(const transaction&) = delete;
        void commit() {
            s_.run("COMMIT");
            done_ = true;
        }
        ~transaction() {
            if (!done_)
                PQclear(PQexec(s_.conn_, "ROLLBACK"));
        }

    private:
        postgres_store& s_;
        bool done_ = false;
    };

    // Holds the waiting deliveries of webhooks just switched off.
    void hold(const std::vector<std::string>& webhook_ids) {
        boost::json::array ids;
        for (const auto& id : webhook_ids)
            ids.emplace_back(id);
        run("UPDATE deliveries SET held = TRUE WHERE webhook_id = ANY(ARRAY(SELECT "
            "json_array_elements_text($1::json))) AND status = 'pending' AND NOT held",
            {p(boost::json::serialize(ids))});
    }

    pg::runner runner() {
        return
            [this](const std::string& sql, const std::vector<param>& ps) { return run(sql, ps); };
    }

    // Each statement is prepared on its first use and executed as prepared from then on, so
    // the server parses and plans the hot ones (ingest, claim, record) once per connection.
    std::unique_ptr<result> run(const std::string& sql, const std::vector<param>& params = {}) {
        std::vector<const char*> values;
        values.reserve(params.size());
        for (const auto& v : params)
            values.push_back(v ? v->c_str() : nullptr);
        auto n = static_cast<int>(values.size());
        auto found = prepared_.find(sql);
        if (found == prepared_.end()) {
            std::string name = "gate_hooks_" + std::to_string(prepared_.size());
            checked(PQprepare(conn_, name.c_str(), sql.c_str(), n, nullptr));
            found = prepared_.emplace(sql, std::move(name)).first;
        }
        return checked(
            PQexecPrepared(conn_, found->second.c_str(), n, values.data(), nullptr, nullptr, 0));
    }

    std::unique_ptr<result> checked(PGresult* r) {
        if (!r)
            throw std::runtime_error(std::string("postgres: ") + PQerrorMessage(conn_));
        if (PQstatus(conn_) == CONNECTION_BAD) {
            // A broken connection is reopened for the next call (its prepared statements and
            // settings are gone with it); this one fails.
            PQreset(conn_);
            prepared_.clear();
            if (PQstatus(conn_) == CONNECTION_OK)
                configure();
        }
        return std::make_unique<result>(conn_, r);
    }

    // Every statement here was written for an index, and the planner is told so: a plan made
    // while a new queue was empty (no statistics, a few pages) chose a sequential scan filtered
    // by `id = ANY(...)`, and a prepared statement kept it as the table grew; a claim planned
    // from stale statistics chose a bitmap scan, which reads every entry in the due range (tens
    // of thousands after a burst, most of them dead row versions) where an index scan stops at
    // the claim's size and marks the dead entries it passes. With both scans priced out,
    // statements are planned once per connection and stay index plans whatever the table's
    // size; a statement with no index to use still gets its sequential scan.
    void configure() {
        script("SET client_min_messages = warning; SET enable_seqscan = off; "
               "SET enable_bitmapscan = off");
    }

    // Several statements, no parameters (a migration).
    void script(const char* sql) {
        auto* r = PQexec(conn_, sql);
        if (!r)
            throw std::runtime_error(std::string("postgres: ") + PQerrorMessage(conn_));
        result checked(conn_, r);
    }

    void migrate() {
        // Instances starting together take turns; each runs what is missing.
        run("SELECT pg_advisory_lock(727100)");
        try {
            run("CREATE TABLE IF NOT EXISTS gate_hooks_schema (version INTEGER NOT NULL)");
            auto v = run("SELECT max(version) FROM gate_hooks_schema");
            std::size_t version = v->null(0, 0) ? 0 : static_cast<std::size_t>(v->integer(0, 0));
            const auto migrations = postgres_migrations();
            for (auto i = version; i < migrations.size(); ++i) {
                run("BEGIN");
                try {
                    script(migrations[i]);
                    run("INSERT INTO gate_hooks_schema (version) VALUES ($1)",
                        {p(static_cast<std::int64_t>(i + 1))});
                    run("COMMIT");
                } catch (...) {
                    PQclear(PQexec(conn_, "ROLLBACK"));
                    throw;
                }
            }
        } catch (...) {
            PQclear(PQexec(conn_, "SELECT pg_advisory_unlock(727100)"));
            throw;
        }
        run("SELECT pg_advisory_unlock(727100)");
    }

    PGconn* conn_;
    std::unordered_map<std::string, std::string> prepared_; // SQL -> statement name
};

} // namespace

std::unique_ptr<store> open_postgres_store(const std::string& url) {
    return std::make_unique<postgres_store>(url);
}

} // namespace gate::hooks
