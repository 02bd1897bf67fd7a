// An organization's deliveries at a glance (store::stats, GET /stats) on both stores: SQLite
// in a temporary file and a real PostgreSQL started for each test, with time passed in: the
// queue and the dead letters now, the deliveries whose latest attempt ended within the window
// counted as delivered or failed by how it ended, another organization's never; and each
// attempt's end and duration kept on its delivery.
#include "hooks/store.hpp"
#include "tests/support/hooks_store_fixtures.hpp"

#include <gtest/gtest.h>

using namespace gate::hooks;
using namespace std::chrono_literals;

namespace {

const clock_time stats_t0{std::chrono::hours(500000)};

struct stats_fixture : gate::test::hooks_both_stores {
    webhook make(const std::string& org) {
        return db->create_webhook(org, {"deploy.success", "https://r.example/" + org, std::nullopt},
                                  stats_t0);
    }
    void record(const due_delivery& due, std::optional<int> status, delivery_status next,
                clock_time at, std::int64_t took_ms) {
        db->record({due.d.id, due.claim,
                    attempt_result{status, status ? std::nullopt : std::optional("timeout"),
                                   std::nullopt, took_ms},
                    next, at + 5s, false, at});
    }
};

void expect_stats(const org_stats& s, std::int64_t queue, std::int64_t dead, std::int64_t delivered,
                  std::int64_t failed) {
    EXPECT_EQ(s.queue_depth, queue);
    EXPECT_EQ(s.dead_letters, dead);
    EXPECT_EQ(s.delivered, delivered);
    EXPECT_EQ(s.failed, failed);
}

} // namespace

TEST_P(stats_fixture, counts_the_queue_the_dead_letters_and_the_window_by_latest_attempt) {
    auto hook = make("org_a");
    make("org_b");
    for (int i = 0; i < 3; ++i)
        db->ingest("org_a", "deploy.success", "{}", stats_t0);
    db->ingest("org_b", "deploy.success", "{}", stats_t0);
    expect_stats(db->stats("org_a", stats_t0 - 1h), 3, 0, 0, 0);

    auto due = db->claim_due(stats_t0, 10, 30s);
    ASSERT_EQ(due.size(), 4u);
    std::vector<due_delivery> mine;
    for (auto& d : due)
        if (d.d.organization == "org_a")
            mine.push_back(d);
    ASSERT_EQ(mine.size(), 3u);
    expect_stats(db->stats("org_a", stats_t0 - 1h), 3, 0, 0, 0); // in an attempt: still queued

    record(mine[0], 200, delivery_status::succeeded, stats_t0 + 1s, 120);
    record(mine[1], 503, delivery_status::pending, stats_t0 + 2s, 40);
    record(mine[2], std::nullopt, delivery_status::dead, stats_t0 + 3s, 2000);
    expect_stats(db->stats("org_a", stats_t0), 1, 1, 1, 2);
    // The window is after `since`: an attempt that ended at it is out.
    expect_stats(db->stats("org_a", stats_t0 + 1s), 1, 1, 0, 2);
    expect_stats(db->stats("org_a", stats_t0 + 3s), 1, 1, 0, 0);
    // Another organization's deliveries are never counted, and its own are its alone.
    expect_stats(db->stats("org_b", stats_t0), 1, 0, 0, 0);

    // A retry that then succeeds: the delivery counts once, as delivered.
    auto again = db->claim_due(stats_t0 + 10s, 10, 30s);
    ASSERT_EQ(again.size(), 1u); // org_b's first attempt still holds its lease
    ASSERT_EQ(again[0].d.id, mine[1].d.id);
    record(again[0], 204, delivery_status::succeeded, stats_t0 + 11s, 15);
    expect_stats(db->stats("org_a", stats_t0), 0, 1, 2, 1);

    // A dead letter's retry is still in the dead-letter queue, and queued.
    EXPECT_EQ(db->retry_dead_letters("org_a", hook.id, stats_t0 + 20s), 1u);
    expect_stats(db->stats("org_a", stats_t0), 1, 1, 2, 1);
}

TEST_P(stats_fixture, each_delivery_keeps_its_latest_attempts_end_and_duration) {
    auto hook = make("org_a");
    db->ingest("org_a", "deploy.success", "{}", stats_t0);
    auto fresh = db->deliveries("org_a", hook.id, 10);
    ASSERT_EQ(fresh.size(), 1u);
    EXPECT_FALSE(fresh[0].last_attempt_at);
    EXPECT_FALSE(fresh[0].last_duration_ms);

    auto first = db->claim_due(stats_t0, 10, 30s).at(0);
    record(first, 503, delivery_status::pending, stats_t0 + 1s, 250);
    auto after_first = db->deliveries("org_a", hook.id, 10).at(0);
    EXPECT_EQ(after_first.last_attempt_at, stats_t0 + 1s);
    EXPECT_EQ(after_first.last_duration_ms, 250);
    EXPECT_EQ(after_first.last_status, 503);

    // A claim starts an attempt; only its outcome moves the latest attempt.
    auto second = db->claim_due(stats_t0 + 10s, 10, 30s).at(0);
    EXPECT_EQ(db->deliveries("org_a", hook.id, 10).at(0).last_attempt_at, stats_t0 + 1s);
    record(second, 200, delivery_status::succeeded, stats_t0 + 11s, 35);
    auto done = db->deliveries("org_a", hook.id, 10).at(0);
    EXPECT_EQ(done.last_attempt_at, stats_t0 + 11s);
    EXPECT_EQ(done.last_duration_ms, 35);
    EXPECT_EQ(done.attempts, 2);
}

INSTANTIATE_TEST_SUITE_P(stores, stats_fixture, gate::test::hooks_store_kinds(),
                         gate::test::hooks_store_name);
