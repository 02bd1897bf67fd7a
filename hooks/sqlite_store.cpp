// The SQLite store: one file in WAL mode, the schema migrated at open. One connection, used
// only from the store actor's thread.
#include "hooks/failure_kind.hpp"
#include "hooks/private_files.hpp"
#include "hooks/sqlite_retention.hpp"
#include "hooks/sqlite_statement.hpp"
#include "hooks/store.hpp"
#include "hooks/store_schema.hpp"
#include "protocol/random_id.hpp"
#include "protocol/utc_timestamp.hpp"

#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <stdexcept>
#include <vector>

namespace gate::hooks {

namespace {

using sqlite::statement;
using sqlite::statement_cache;
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

webhook read_webhook(const statement& s) {
    webhook w;
    w.id = s.text(0);
    w.organization = s.text(1);
    w.event = s.text(2);
    w.url = s.text(3);
    w.secret = s.opt_text(4);
    w.enabled = s.integer(5) != 0;
    w.disabled_reason = s.opt_text(6);
    w.created_at = at(s.integer(7));
    w.updated_at = at(s.integer(8));
    return w;
}

constexpr const char* delivery_columns =
    "d.id, d.webhook_id, d.event_id, d.organization, d.event_type, d.status, d.attempts, "
    "d.next_attempt_at, d.last_status, d.last_error, d.response_body, d.created_at, "
    "d.updated_at, d.dead_at, d.dead_letter_retry, d.last_attempt_at, d.last_duration_ms";
constexpr int delivery_column_count = 17;

delivery read_delivery(const statement& s, int first = 0) {
    delivery d;
    d.id = s.text(first + 0);
    d.webhook_id = s.text(first + 1);
    d.event_id = s.text(first + 2);
    d.organization = s.text(first + 3);
    d.event_type = s.text(first + 4);
    d.status = delivery_status_from(s.text(first + 5)).value_or(delivery_status::pending);
    d.attempts = static_cast<int>(s.integer(first + 6));
    d.next_attempt_at = at(s.integer(first + 7));
    if (auto v = s.opt_integer(first + 8))
        d.last_status = static_cast<int>(*v);
    d.last_error = s.opt_text(first + 9);
    d.response_body = s.opt_text(first + 10);
    d.created_at = at(s.integer(first + 11));
    d.updated_at = at(s.integer(first + 12));
    if (auto v = s.opt_integer(first + 13))
        d.dead_at = at(*v);
    d.dead_letter_retry = s.integer(first + 14) != 0;
    if (auto v = s.opt_integer(first + 15))
        d.last_attempt_at = at(*v);
    d.last_duration_ms = s.opt_integer(first + 16);
    return d;
}

constexpr const char* attempt_columns =
    "a.delivery_id, a.webhook_id, a.number, a.ended_at, a.duration_ms, a.status, a.failure";

delivery_attempt read_attempt(const statement& s) {
    delivery_attempt a;
    a.delivery_id = s.text(0);
    a.webhook_id = s.text(1);
    a.number = static_cast<int>(s.integer(2));
    a.ended_at = at(s.integer(3));
    a.duration_ms = s.opt_integer(4);
    if (auto v = s.opt_integer(5))
        a.status = static_cast<int>(*v);
    a.failure = s.opt_text(6);
    return a;
}

class sqlite_store final : public store {
public:
    explicit sqlite_store(const std::string& path) {
        for (const auto& file : keep_database_private(path))
            spdlog::warn("made {} readable by its owner only: other users could read the "
                         "webhook secrets it holds; rotate them",
                         file);
        if (sqlite3_open_v2(path.c_str(), &db_,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                            nullptr) != SQLITE_OK) {
            std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw std::runtime_error("cannot open " + path + ": " + why);
        }
        cache_.open(db_);
        sqlite3_busy_timeout(db_, 5000);
        exec("PRAGMA journal_mode = WAL");
        exec("PRAGMA synchronous = NORMAL"); // WAL: durable at each commit's checkpoint order
        exec("PRAGMA foreign_keys = ON");
        migrate();
    }
    ~sqlite_store() override {
        cache_.clear();
        sqlite3_close(db_);
    }

    webhook create_webhook(const std::string& org, const webhook_spec& spec,
                           clock_time now) override {
        webhook w;
        w.id = "hook_" + protocol::random_id().substr(0, 24);
        w.organization = org;
        w.event = spec.event;
        w.url = spec.url;
        w.secret = spec.secret;
        w.created_at = w.updated_at = now;
        statement s(cache_, "INSERT INTO webhooks (id, organization, event, url, secret, enabled, "
                            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)");
        s.bind(1, w.id).bind(2, org).bind(3, w.event).bind(4, w.url).bind(5, w.secret);
        s.bind(6, ms(now)).bind(7, ms(now)).step();
        return w;
    }

    std::vector<webhook> list_webhooks(const std::string& org) override {
        statement s(cache_, (std::string("SELECT ") + webhook_columns +
                             " FROM webhooks WHERE organization = ? ORDER BY created_at, id")
                                .c_str());
        s.bind(1, org);
        std::vector<webhook> out;
        while (s.step())
            out.push_back(read_webhook(s));
        return out;
    }

    std::optional<webhook> get_webhook(const std::string& org, const std::string& id) override {
        statement s(cache_, (std::string("SELECT ") + webhook_columns +
                             " FROM webhooks WHERE organization = ? AND id = ?")
                                .c_str());
        s.bind(1, org).bind(2, id);
        if (!s.step())
            return std::nullopt;
        return read_webhook(s);
    }

    std::optional<webhook> update_webhook(const std::string& org, const std::string& id,
                                          const webhook_patch& patch, clock_time now) override {
        transaction tx(*this);
        statement s(cache_,
                    "UPDATE webhooks SET url = COALESCE(?1, url), secret = CASE WHEN ?2 THEN ?3 "
                    "ELSE secret END, enabled = COALESCE(?4, enabled), disabled_reason = CASE "
                    "WHEN ?4 IS NULL THEN disabled_reason END, updated_at = ?5 WHERE "
                    "organization = ?6 AND id = ?7");
        s.bind(1, patch.url).bind(2, std::int64_t{patch.secret.has_value()});
        s.bind(3, patch.secret.value_or(std::nullopt));
        s.bind(4, patch.enabled ? std::optional<int>(*patch.enabled) : std::nullopt);
        s.bind(5, ms(now)).bind(6, org).bind(7, id).step();
        if (sqlite3_changes(db_) == 0)
            return std::nullopt;
        if (patch.enabled) {
            statement h(cache_, "UPDATE deliveries SET held = ?1 WHERE webhook_id = ?2 AND "
                                "status = 'pending' AND held != ?1");
            h.bind(1, std::int64_t{!*patch.enabled}).bind(2, id).step();
        }
        tx.commit();
        return get_webhook(org, id);
    }

    bool delete_webhook(const std::string& org, const std::string& id) override {
        statement s(cache_, "DELETE FROM webhooks WHERE organization = ? AND id = ?");
        s.bind(1, org).bind(2, id).step();
        return sqlite3_changes(db_) > 0;
    }

    ingested ingest(const std::string& org, const std::string& type, const std::string& data,
                    clock_time now) override {
        transaction tx(*this);
        ingested out;
        out.event_id = "evt_" + protocol::random_id().substr(0, 24);
        statement e(cache_, "INSERT INTO events (id, organization, type, data, created_at) "
                            "VALUES (?, ?, ?, ?, ?)");
        e.bind(1, out.event_id).bind(2, org).bind(3, type).bind(4, data).bind(5, ms(now)).step();
        statement hooks(cache_, "SELECT id FROM webhooks WHERE organization = ? AND event = ? AND "
                                "enabled = 1");
        hooks.bind(1, org).bind(2, type);
        std::vector<std::string> targets;
        while (hooks.step())
            targets.push_back(hooks.text(0));
        for (const auto& hook : targets) {
            statement d(cache_, "INSERT INTO deliveries (id, webhook_id, event_id, organization, "
                                "event_type, status, next_attempt_at, created_at, updated_at) "
                                "VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)");
            d.bind(1, "dlv_" + protocol::random_id().substr(0, 24)).bind(2, hook);
            d.bind(3, out.event_id).bind(4, org).bind(5, type).bind(6, ms(now));
            d.bind(7, ms(now)).bind(8, ms(now)).step();
        }
        out.deliveries = targets.size();
        tx.commit();
        return out;
    }

    std::vector<due_delivery> claim_due(clock_time now, std::size_t limit,
                                        std::chrono::milliseconds lease) override {
        transaction tx(*this);
        // Lapsed claims first, then pending deliveries oldest first: two index scans that stop
        // at the limit (one OR of both conditions sorted the whole backlog on every claim).
        // A disabled webhook's deliveries wait until it is enabled again (held out of
        // deliveries_ready; the EXISTS is the rule itself, the hold what keeps it cheap).
        constexpr const char* enabled =
            "EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.enabled = 1)";
        statement s(cache_, std::string("WITH due AS (SELECT id FROM (SELECT d.id FROM deliveries "
                                        "d INDEXED BY deliveries_due WHERE d.status = "
                                        "'delivering' AND d.lease_until <= ?1 AND ") +
                                enabled +
                                " LIMIT ?2) UNION ALL SELECT id FROM (SELECT d.id FROM "
                                "deliveries d INDEXED BY deliveries_ready WHERE d.status = "
                                "'pending' AND d.held = 0 AND d.next_attempt_at <= ?1 AND " +
                                enabled +
                                " ORDER BY d.next_attempt_at LIMIT ?2) LIMIT ?2) SELECT " +
                                delivery_columns +
                                ", w.url, w.secret, e.created_at, e.data FROM due JOIN "
                                "deliveries d ON d.id = due.id JOIN webhooks w ON w.id = "
                                "d.webhook_id JOIN events e ON e.id = d.event_id");
        s.bind(1, ms(now)).bind(2, static_cast<std::int64_t>(limit));
        std::vector<due_delivery> out;
        while (s.step()) {
            due_delivery due;
            due.d = read_delivery(s);
            constexpr int n = delivery_column_count;
            due.url = s.text(n);
            due.secret = s.opt_text(n + 1);
            due.event_time = protocol::utc_timestamp(at(s.integer(n + 2)));
            due.data = s.text(n + 3);
            out.push_back(std::move(due));
        }
        for (auto& due : out) {
            due.claim = protocol::random_id();
            statement u(cache_, "UPDATE deliveries SET status = 'delivering', lease_until = ?, "
                                "claim = ?, updated_at = ? WHERE id = ?");
            u.bind(1, ms(now + lease)).bind(2, due.claim).bind(3, ms(now)).bind(4, due.d.id);
            u.step();
            due.d.status = delivery_status::delivering;
        }
        tx.commit();
        return out;
    }

    void record(const attempt_record& r) override { record_all({r}); }

    void record_all(const std::vector<attempt_record>& rs) override {
        transaction tx(*this);
        for (const auto& r : rs)
            record_one(r);
        tx.commit();
    }

    void record_one(const attempt_record& r) {
        std::int64_t number = 0;
        std::string webhook_id;
        {
            statement s(cache_,
                        "UPDATE deliveries SET status = ?, attempts = attempts + 1, "
                        "next_attempt_at = ?, lease_until = NULL, claim = NULL, "
                        "last_status = ?, last_error = ?, response_body = ?, updated_at = ?, "
                        "dead_at = CASE WHEN ? = 'dead' THEN COALESCE(dead_at, ?) ELSE NULL END, "
                        "dead_letter_retry = 0, held = (?1 = 'pending' AND NOT (SELECT enabled "
                        "FROM webhooks WHERE id = deliveries.webhook_id)), last_attempt_at = ?6, "
                        "last_duration_ms = ?11 WHERE id = ?9 AND claim = ?10 RETURNING "
                        "attempts, webhook_id");
            const char* status = to_string(r.next);
            s.bind(1, status).bind(2, ms(r.next_attempt_at)).bind(3, r.result.status);
            s.bind(4, r.result.error).bind(5, r.result.response_body).bind(6, ms(r.now));
            s.bind(7, status).bind(8, ms(r.now)).bind(9, r.delivery_id).bind(10, r.claim);
            s.bind(11, r.result.duration_ms);
            if (!s.step())
                return; // a stale claim: a newer attempt owns the delivery
            number = s.integer(0);
            webhook_id = s.text(1);
        }
        log_attempt(r, number, webhook_id);
        if (r.disable_webhook) {
            statement w(cache_, "UPDATE webhooks SET enabled = 0, disabled_reason = ?, "
                                "updated_at = ? WHERE id = (SELECT webhook_id FROM deliveries "
                                "WHERE id = ?)");
            w.bind(1, "the receiver answered 410 Gone").bind(2, ms(r.now));
            w.bind(3, r.delivery_id).step();
            statement h(cache_, "UPDATE deliveries SET held = 1 WHERE webhook_id = (SELECT "
                                "webhook_id FROM deliveries WHERE id = ?) AND status = 'pending'");
            h.bind(1, r.delivery_id).step();
        }
    }

    // The outcome in its delivery's log, which keeps the latest kept_attempts_per_delivery
    // (the number only grows, so those are the ones above the latest minus the cap).
    void log_attempt(const attempt_record& r, std::int64_t number, const std::string& webhook_id) {
        statement a(cache_, "INSERT INTO delivery_attempts (delivery_id, number, webhook_id, "
                            "ended_at, duration_ms, status, failure) VALUES (?, ?, ?, ?, ?, ?, ?)");
        a.bind(1, r.delivery_id).bind(2, number).bind(3, webhook_id).bind(4, ms(r.now));
        a.bind(5, r.result.duration_ms).bind(6, r.result.status);
        a.bind(7, attempt_failure(r.result)).step();
        if (number <= kept_attempts_per_delivery)
            return;
        statement old(cache_,
                      "DELETE FROM delivery_attempts WHERE delivery_id = ? AND number <= ?");
        old.bind(1, r.delivery_id).bind(2, number - kept_attempts_per_delivery).step();
    }

    std::vector<delivery_attempt> recent_attempts(const std::string& org,
                                                  const std::string& webhook_id,
                                                  std::size_t limit) override {
        statement s(cache_, std::string("SELECT ") + attempt_columns +
                                " FROM delivery_attempts a INDEXED BY delivery_attempts_recent "
                                "WHERE a.webhook_id = ?1 AND EXISTS (SELECT 1 FROM webhooks w "
                                "WHERE w.id = ?1 AND w.organization = ?2) ORDER BY a.ended_at "
                                "DESC, a.delivery_id DESC, a.number DESC LIMIT ?3");
        s.bind(1, webhook_id).bind(2, org).bind(3, static_cast<std::int64_t>(limit));
        std::vector<delivery_attempt> out;
        while (s.step())
            out.push_back(read_attempt(s));
        return out;
    }

    std::optional<std::vector<delivery_attempt>>
    attempts_of(const std::string& org, const std::string& delivery_id) override {
        statement d(cache_, "SELECT 1 FROM deliveries WHERE id = ? AND organization = ?");
        d.bind(1, delivery_id).bind(2, org);
        if (!d.step())
            return std::nullopt;
        statement s(cache_, std::string("SELECT ") + attempt_columns +
                                " FROM delivery_attempts a WHERE a.delivery_id = ? ORDER BY "
                                "a.number");
        s.bind(1, delivery_id);
        std::vector<delivery_attempt> out;
        while (s.step())
            out.push_back(read_attempt(s));
        return out;
    }

    std::vector<delivery> deliveries(const std::string& org, const std::string& webhook_id,
                                     std::size_t limit) override {
        statement s(cache_, (std::string("SELECT ") + delivery_columns +
                             " FROM deliveries d WHERE d.organization = ? AND d.webhook_id = ? "
                             "ORDER BY d.created_at DESC, d.id DESC LIMIT ?")
                                .c_str());
        s.bind(1, org).bind(2, webhook_id).bind(3, static_cast<std::int64_t>(limit));
        std::vector<delivery> out;
        while (s.step())
            out.push_back(read_delivery(s));
        return out;
    }

    dlq_stats dead_letter_stats(const std::string& org, clock_time now) override {
        dlq_stats out;
        statement s(cache_,
                    "SELECT event_type, COUNT(*) FROM deliveries WHERE organization = ? "
                    "AND (status = 'dead' OR dead_letter_retry = 1) GROUP BY event_type ORDER "
                    "BY event_type");
        s.bind(1, org);
        while (s.step()) {
            out.types.push_back({s.text(0), s.integer(1)});
            out.total += s.integer(1);
        }
        statement a(cache_, "SELECT "
                            "SUM(dead_at > ?1), SUM(dead_at <= ?1 AND dead_at > ?2), "
                            "SUM(dead_at <= ?2 AND dead_at > ?3), SUM(dead_at <= ?3) "
                            "FROM deliveries WHERE organization = ?4 AND (status = 'dead' OR "
                            "dead_letter_retry = 1)");
        using namespace std::chrono_literals;
        a.bind(1, ms(now - 1h)).bind(2, ms(now - 24h)).bind(3, ms(now - 168h)).bind(4, org);
        if (a.step()) {
            out.under_hour = a.opt_integer(0).value_or(0);
            out.under_day = a.opt_integer(1).value_or(0);
            out.under_week = a.opt_integer(2).value_or(0);
            out.older = a.opt_integer(3).value_or(0);
        }
        return out;
    }

    dlq_page dead_letters(const std::string& org, const dlq_filter& filter,
                          const std::optional<std::string>& cursor, std::size_t limit) override {
        // Keyset pagination on (dead_at, id): stable while entries come and go.
        std::string sql = std::string("SELECT ") + delivery_columns +
                          " FROM deliveries d WHERE d.organization = ?1 AND (d.status = 'dead' OR "
                          "d.dead_letter_retry = 1) "
                          "AND (?2 IS NULL OR d.event_type = ?2) "
                          "AND (?3 IS NULL OR d.webhook_id = ?3) "
                          "AND (?4 IS NULL OR (d.dead_at, d.id) > "
                          "(SELECT dead_at, id FROM deliveries WHERE id = ?4)) "
                          "ORDER BY d.dead_at, d.id LIMIT ?5";
        statement s(cache_, sql.c_str());
        s.bind(1, org).bind(2, filter.event_type).bind(3, filter.webhook_id).bind(4, cursor);
        s.bind(5, static_cast<std::int64_t>(limit + 1));
        dlq_page page;
        while (s.step())
            page.entries.push_back(read_delivery(s));
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
        statement s(cache_, "UPDATE deliveries SET status = 'pending', next_attempt_at = ?1, "
                            "dead_letter_retry = 1, updated_at = ?2, held = (SELECT enabled = 0 "
                            "FROM webhooks WHERE id = ?4) WHERE organization = ?3 AND "
                            "webhook_id = ?4 AND status = 'dead'");
        s.bind(1, ms(now)).bind(2, ms(now)).bind(3, org).bind(4, webhook_id).step();
        return static_cast<std::size_t>(sqlite3_changes(db_));
    }

    org_stats stats(const std::string& org, clock_time since) override {
        org_stats out;
        // The queue by deliveries_dead's (organization, status) prefix, the queue's rows only;
        // the window by deliveries_recent, its attempted rows only.
        statement q(cache_, "SELECT status, COUNT(*), SUM(dead_letter_retry) FROM deliveries "
                            "WHERE organization = ? AND status IN ('pending', 'delivering', "
                            "'dead') GROUP BY status");
        q.bind(1, org);
        while (q.step()) {
            if (q.text(0) == "dead") {
                out.dead_letters += q.integer(1);
            } else {
                out.queue_depth += q.integer(1);
                out.dead_letters += q.integer(2); // a dead letter's retry, waiting or running
            }
        }
        statement w(cache_, "SELECT COALESCE(SUM(status = 'succeeded'), 0), "
                            "COALESCE(SUM(status != 'succeeded'), 0) FROM deliveries INDEXED BY "
                            "deliveries_recent WHERE organization = ? AND last_attempt_at > ?");
        w.bind(1, org).bind(2, ms(since)).step();
        out.delivered = w.integer(0);
        out.failed = w.integer(1);
        return out;
    }

    pruned_deliveries prune_deliveries(clock_time before, std::size_t limit) override {
        transaction tx(*this);
        auto out = sqlite::prune_deliveries(cache_, before, limit);
        tx.commit();
        return out;
    }

    pruned_events prune_events(clock_time before, const std::optional<event_key>& after,
                               std::size_t limit) override {
        transaction tx(*this);
        auto out = sqlite::prune_events(cache_, before, after, limit);
        tx.commit();
        return out;
    }

    std::pair<std::int64_t, std::int64_t> depths() override {
        statement s(cache_,
                    "SELECT COALESCE(SUM(status IN ('pending', 'delivering')), 0), "
                    "COALESCE(SUM(status = 'dead' OR dead_letter_retry = 1), 0) FROM deliveries");
        s.step();
        return {s.integer(0), s.integer(1)};
    }

private:
    struct transaction {
        explicit transaction(sqlite_store& s) : s_(s) { s_.exec("BEGIN IMMEDIATE"); }
        void commit() {
            s_.exec("COMMIT");
            done_ = true;
        }
        ~transaction() {
            if (!done_)
                sqlite3_exec(s_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
        }
        sqlite_store& s_;
        bool done_ = false;
    };

    void exec(const char* sql) {
        char* err = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            std::string why = err ? err : "unknown error";
            sqlite3_free(err);
            throw std::runtime_error(std::string("sqlite: ") + why);
        }
    }

    void migrate() {
        statement v(cache_, "PRAGMA user_version");
        v.step();
        auto version = static_cast<std::size_t>(v.integer(0));
        const auto migrations = sqlite_migrations();
        for (auto i = version; i < migrations.size(); ++i) {
            transaction tx(*this);
            exec(migrations[i]);
            exec(("PRAGMA user_version = " + std::to_string(i + 1)).c_str());
            tx.commit();
        }
    }

    sqlite3* db_ = nullptr;
    statement_cache cache_;
};

} // namespace

std::unique_ptr<store> open_sqlite_store(const std::string& path) {
    return std::make_unique<sqlite_store>(path);
}

std::unique_ptr<store> open_store(const std::string& database) {
    if (database.starts_with("postgres://") || database.starts_with("postgresql://"))
        return open_postgres_store(database);
    return open_sqlite_store(database);
}

} // namespace gate::hooks
