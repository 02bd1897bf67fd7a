// Every attempt of a delivery kept in its log (store::record, recent_attempts, attempts_of), on
// both stores: SQLite in a temporary file and a real PostgreSQL started for each test, with
// time passed in. Each attempt keeps its number, end, duration and the receiver's status or
// the kind of its failure; another organization sees none of it; an outcome under a stale
// claim is not logged; a delivery keeps at most kept_attempts_per_delivery; and the log goes
// with its webhook.
#include "hooks/store.hpp"
#include "tests/support/hooks_store_fixtures.hpp"

#include <gtest/gtest.h>

using namespace gate::hooks;
using namespace std::chrono_literals;

namespace {

const clock_time log_t0{std::chrono::hours(510000)};

struct attempt_log : gate::test::hooks_both_stores {
    // Rows in the log, whoever's.
    std::int64_t logged_rows() const { return scalar("SELECT count(*) FROM delivery_attempts"); }

    webhook make(const std::string& org) {
        return db->create_webhook(org, {"deploy.success", "https://r.example/" + org, std::nullopt},
                                  log_t0);
    }
    // The one due delivery's attempt at `at`, ended `took_ms` later with `status` or `error`.
    void attempt(clock_time at, std::optional<int> status, std::optional<std::string> error,
                 std::int64_t took_ms, delivery_status next = delivery_status::pending) {
        auto due = db->claim_due(at, 1, 30s);
        ASSERT_EQ(due.size(), 1u);
        auto end = at + std::chrono::milliseconds(took_ms);
        db->record(
            {due[0].d.id, due[0].claim,
             attempt_result{status, error, status ? std::optional("busy") : std::nullopt, took_ms},
             next, end + 1s, false, end});
    }
};

void expect_attempt(const delivery_attempt& a, int number, clock_time ended,
                    std::optional<std::int64_t> took, std::optional<int> status,
                    std::optional<std::string> failure) {
    EXPECT_EQ(a.number, number);
    EXPECT_EQ(a.ended_at, ended);
    EXPECT_EQ(a.duration_ms, took);
    EXPECT_EQ(a.status, status);
    EXPECT_EQ(a.failure, failure);
}

} // namespace

TEST_P(attempt_log, every_attempt_is_kept_with_its_code_or_failure_and_timing) {
    auto hook = make("org_a");
    db->ingest("org_a", "deploy.success", "{}", log_t0);
    auto id = db->deliveries("org_a", hook.id, 10).at(0).id;
    auto none = db->attempts_of("org_a", id);
    ASSERT_TRUE(none); // a delivery of the organization's, not attempted yet
    EXPECT_TRUE(none->empty());

    attempt(log_t0, 503, std::nullopt, 40);
    attempt(log_t0 + 2s, std::nullopt, "timeout: no answer within 2000 ms", 2000);
    attempt(log_t0 + 10s, std::nullopt, "cannot connect: Connection refused", 3);
    attempt(log_t0 + 20s, 200, std::nullopt, 12, delivery_status::succeeded);

    auto log = db->attempts_of("org_a", id);
    ASSERT_TRUE(log);
    ASSERT_EQ(log->size(), 4u);
    expect_attempt(log->at(0), 1, log_t0 + 40ms, 40, 503, std::nullopt);
    expect_attempt(log->at(1), 2, log_t0 + 4s, 2000, std::nullopt, "timeout");
    expect_attempt(log->at(2), 3, log_t0 + 10s + 3ms, 3, std::nullopt, "refused");
    expect_attempt(log->at(3), 4, log_t0 + 20s + 12ms, 12, 200, std::nullopt);
    for (const auto& a : *log) {
        EXPECT_EQ(a.delivery_id, id);
        EXPECT_EQ(a.webhook_id, hook.id);
    }
    // The delivery itself still says how its latest attempt went.
    EXPECT_EQ(db->deliveries("org_a", hook.id, 10).at(0).attempts, 4);

    // A webhook's recent attempts: across its deliveries, newest first, `limit` of them.
    db->ingest("org_a", "deploy.success", "{}", log_t0 + 30s);
    attempt(log_t0 + 30s, 500, std::nullopt, 7);
    auto recent = db->recent_attempts("org_a", hook.id, 3);
    ASSERT_EQ(recent.size(), 3u);
    EXPECT_NE(recent[0].delivery_id, id);
    expect_attempt(recent[0], 1, log_t0 + 30s + 7ms, 7, 500, std::nullopt);
    expect_attempt(recent[1], 4, log_t0 + 20s + 12ms, 12, 200, std::nullopt);
    expect_attempt(recent[2], 3, log_t0 + 10s + 3ms, 3, std::nullopt, "refused");
}

TEST_P(attempt_log, another_organization_sees_none_of_it) {
    auto hook = make("org_a");
    auto theirs = make("org_b");
    db->ingest("org_a", "deploy.success", "{}", log_t0);
    attempt(log_t0, 503, std::nullopt, 40);
    auto id = db->deliveries("org_a", hook.id, 10).at(0).id;
    ASSERT_EQ(db->attempts_of("org_a", id)->size(), 1u);

    EXPECT_FALSE(db->attempts_of("org_b", id));
    EXPECT_FALSE(db->attempts_of("org_a", "dlv_nobody"));
    EXPECT_TRUE(db->recent_attempts("org_b", hook.id, 100).empty());
    EXPECT_TRUE(db->recent_attempts("org_a", theirs.id, 100).empty());
    EXPECT_EQ(db->recent_attempts("org_a", hook.id, 100).size(), 1u);
}

TEST_P(attempt_log, an_outcome_under_a_stale_claim_is_not_logged) {
    auto hook = make("org_a");
    db->ingest("org_a", "deploy.success", "{}", log_t0);
    auto stalled = db->claim_due(log_t0, 1, 30s).at(0);
    auto took_over = db->claim_due(log_t0 + 31s, 1, 30s).at(0); // the first lease lapsed
    db->record({stalled.d.id, stalled.claim, attempt_result{200, std::nullopt, "ok", 31000},
                delivery_status::succeeded, log_t0 + 31s, false, log_t0 + 31s});
    EXPECT_EQ(db->attempts_of("org_a", stalled.d.id)->size(), 0u);
    db->record({took_over.d.id, took_over.claim, attempt_result{204, std::nullopt, "", 5},
                delivery_status::succeeded, log_t0 + 32s, false, log_t0 + 32s});
    auto log = db->attempts_of("org_a", stalled.d.id);
    ASSERT_EQ(log->size(), 1u);
    expect_attempt(log->at(0), 1, log_t0 + 32s, 5, 204, std::nullopt);
    EXPECT_EQ(db->recent_attempts("org_a", hook.id, 100).size(), 1u);
}

TEST_P(attempt_log, a_delivery_keeps_its_latest_attempts_up_to_the_cap) {
    auto hook = make("org_a");
    db->ingest("org_a", "deploy.success", "{}", log_t0);
    constexpr int made = kept_attempts_per_delivery + 3;
    for (int i = 0; i < made; ++i)
        attempt(log_t0 + std::chrono::seconds(2 * i), 500, std::nullopt, 1);
    auto id = db->deliveries("org_a", hook.id, 10).at(0).id;
    auto log = db->attempts_of("org_a", id);
    ASSERT_EQ(log->size(), static_cast<std::size_t>(kept_attempts_per_delivery));
    EXPECT_EQ(log->front().number, 4);
    EXPECT_EQ(log->back().number, made);
    EXPECT_EQ(logged_rows(), kept_attempts_per_delivery);
    EXPECT_EQ(db->deliveries("org_a", hook.id, 10).at(0).attempts, made);
}

TEST_P(attempt_log, the_log_goes_with_its_webhook) {
    auto gone = make("org_a");
    db->ingest("org_a", "deploy.success", "{}", log_t0);
    attempt(log_t0, 503, std::nullopt, 40);
    attempt(log_t0 + 5s, 200, std::nullopt, 4, delivery_status::succeeded);
    auto kept =
        db->create_webhook("org_a", {"deploy.failed", "https://r.example/k", std::nullopt}, log_t0);
    db->ingest("org_a", "deploy.failed", "{}", log_t0 + 10s);
    attempt(log_t0 + 10s, 200, std::nullopt, 4, delivery_status::succeeded);
    ASSERT_EQ(logged_rows(), 3);
    EXPECT_TRUE(db->delete_webhook("org_a", gone.id));
    EXPECT_EQ(logged_rows(), 1);
    EXPECT_EQ(db->recent_attempts("org_a", kept.id, 100).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(stores, attempt_log, gate::test::hooks_store_kinds(),
                         gate::test::hooks_store_name);
