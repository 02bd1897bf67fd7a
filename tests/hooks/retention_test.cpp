// Retention on both stores (store::prune_deliveries, store::prune_events, retention_sweep):
// SQLite in a temporary file and a real PostgreSQL started for each test, with time passed in.
// A finished delivery (delivered, or dead and not being retried) older than the retention
// goes with its log and, once no delivery refers to it, its event; one still waiting, in a
// retry, held, in an attempt or being retried from the dead-letter queue stays however old;
// each organization's rows go by their own age only; and every batch is bounded.
#include "hooks/retention.hpp"
#include "hooks/store.hpp"
#include "tests/support/hooks_store_fixtures.hpp"

#include <algorithm>
#include <gtest/gtest.h>

using namespace gate::hooks;
using namespace std::chrono_literals;

namespace {

const clock_time retention_t0{std::chrono::hours(520000)};
constexpr std::chrono::hours retention_day{24};

struct retention_store : gate::test::hooks_both_stores {
    std::int64_t events() const { return scalar("SELECT count(*) FROM events"); }
    std::int64_t logged() const { return scalar("SELECT count(*) FROM delivery_attempts"); }
    std::int64_t all_deliveries() const { return scalar("SELECT count(*) FROM deliveries"); }

    webhook make(const std::string& org, const std::string& event) {
        return db->create_webhook(org, {event, "https://r.example/" + event, std::nullopt},
                                  retention_t0);
    }

    // An event of `type` at `at` and its one delivery (the only one due) through an attempt a
    // second answered with each of `codes`; the last attempt's outcome is `last` (a pending one
    // due again at `again`). The delivery's id.
    std::string run_delivery(const std::string& org, const std::string& type, clock_time at,
                             const std::vector<int>& codes, delivery_status last,
                             clock_time again = {}) {
        EXPECT_EQ(db->ingest(org, type, "{}", at).deliveries, 1u);
        std::string id;
        for (std::size_t i = 0; i < codes.size(); ++i) {
            auto when = at + std::chrono::seconds(i);
            auto due = db->claim_due(when, 10, 30s);
            EXPECT_EQ(due.size(), 1u);
            if (due.size() != 1)
                return id;
            id = due[0].d.id;
            bool final = i + 1 == codes.size();
            auto next = final ? last : delivery_status::pending;
            db->record({id, due[0].claim, attempt_result{codes[i], std::nullopt, "x", 5}, next,
                        final && last == delivery_status::pending ? again : when, false, when});
        }
        return id;
    }

    // A whole sweep at `now`, batch after batch; at most `bound` batches (a sweep that does
    // not end fails here rather than hang).
    sweep_totals sweep(clock_time now, int days, std::size_t batch = retention_batch,
                       int bound = 100) {
        retention_sweep s(now, retention_settings{days, 600000ms}, batch);
        int steps = 0;
        while (s.step(*db))
            if (++steps > bound) {
                ADD_FAILURE() << "the sweep did not end after " << bound << " batches";
                break;
            }
        EXPECT_FALSE(s.step(*db)); // over is over
        return s.totals();
    }
};

std::vector<std::string> retention_ids(const std::vector<delivery>& ds) {
    std::vector<std::string> out;
    for (const auto& d : ds)
        out.push_back(d.id);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> retention_sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace

TEST_P(retention_store, old_finished_deliveries_go_with_their_logs_and_events_and_nothing_else) {
    const auto t0 = retention_t0;
    auto ok = make("org_a", "deploy.success");
    auto failing = make("org_a", "deploy.failed");
    auto retried = make("org_a", "rollback.success");
    auto shared_kept = make("org_a", "usage.threshold");
    auto shared_held = make("org_a", "usage.threshold");
    auto slow = make("org_a", "activation.error");
    auto theirs = make("org_b", "deploy.success");

    // Recent: delivered a day before the sweep's cutoff ends them, in each organization.
    auto recent = run_delivery("org_a", "deploy.success", t0 + 29 * retention_day, {200},
                               delivery_status::succeeded);
    auto theirs_new = run_delivery("org_b", "deploy.success", t0 + 29 * retention_day, {200},
                                   delivery_status::succeeded);
    // Old and finished: delivered after a failure, dead, and org_b's delivered.
    auto delivered =
        run_delivery("org_a", "deploy.success", t0, {500, 200}, delivery_status::succeeded);
    auto dead = run_delivery("org_a", "deploy.failed", t0 + 10s, {500, 503}, delivery_status::dead);
    auto theirs_old =
        run_delivery("org_b", "deploy.success", t0, {200}, delivery_status::succeeded);
    // Finished exactly at the cutoff: not before it, so kept.
    auto edge =
        run_delivery("org_a", "deploy.failed", t0 + 1min, {200}, delivery_status::succeeded);
    // Old and not finished: in a retry (due in 90 days), ...
    auto retrying = run_delivery("org_a", "deploy.success", t0 + 20s, {500},
                                 delivery_status::pending, t0 + 90 * retention_day);
    // ... held by a disabled webhook, beside a delivered one of the same event, ...
    ASSERT_EQ(db->ingest("org_a", "usage.threshold", "{}", t0 + 30s).deliveries, 2u);
    ASSERT_TRUE(db->set_enabled("org_a", shared_held.id, false, t0 + 30s));
    auto shared = db->claim_due(t0 + 30s, 10, 30s);
    ASSERT_EQ(shared.size(), 1u);
    db->record({shared[0].d.id, shared[0].claim, attempt_result{200, std::nullopt, "", 5},
                delivery_status::succeeded, t0 + 30s, false, t0 + 30s});
    // ... in an attempt (its lease lasts 90 days), and a dead letter being retried.
    ASSERT_EQ(db->ingest("org_a", "activation.error", "{}", t0 + 40s).deliveries, 1u);
    ASSERT_EQ(db->claim_due(t0 + 40s, 10, 90 * retention_day).size(), 1u);
    auto redead = run_delivery("org_a", "rollback.success", t0 + 50s, {500}, delivery_status::dead);
    ASSERT_EQ(db->retry_dead_letters("org_a", retried.id, t0 + 51s), 1u);
    // Events nobody subscribed to, an old one and a recent one.
    EXPECT_EQ(db->ingest("org_b", "rollback.success", "{}", t0).deliveries, 0u);
    EXPECT_EQ(db->ingest("org_b", "rollback.success", "{}", t0 + 29 * retention_day).deliveries,
              0u);

    ASSERT_EQ(events(), 12);
    ASSERT_EQ(all_deliveries(), 11);
    auto attempts_before = logged();
    ASSERT_EQ(db->dead_letter_stats("org_a", t0 + 30 * retention_day).total, 2);
    ASSERT_EQ(db->stats("org_b", t0 - 1s).delivered, 2);
    auto queued_before = db->stats("org_a", t0).queue_depth;
    ASSERT_EQ(queued_before, 4); // retrying, held, in an attempt, a dead letter's retry

    auto t = sweep(t0 + 30 * retention_day + 1min, 30);
    EXPECT_EQ(t.deliveries, 4u); // delivered, dead, theirs_old, the shared event's delivered one
    EXPECT_EQ(t.attempts, 6u);
    EXPECT_EQ(t.events, 4u); // theirs, delivered's, dead's, the old unsubscribed one

    EXPECT_FALSE(db->attempts_of("org_a", delivered));
    EXPECT_FALSE(db->attempts_of("org_a", dead));
    EXPECT_FALSE(db->attempts_of("org_b", theirs_old));
    EXPECT_FALSE(db->attempts_of("org_a", shared[0].d.id));
    EXPECT_EQ(logged(), attempts_before - 6);
    EXPECT_EQ(all_deliveries(), 7);
    EXPECT_EQ(events(), 8);
    EXPECT_EQ(retention_ids(db->deliveries("org_a", ok.id, 100)),
              retention_sorted({recent, retrying}));
    EXPECT_EQ(retention_ids(db->deliveries("org_a", failing.id, 100)), retention_sorted({edge}));
    EXPECT_EQ(db->attempts_of("org_a", edge)->size(), 1u);
    EXPECT_EQ(db->attempts_of("org_a", retrying)->size(), 1u);
    EXPECT_EQ(db->attempts_of("org_a", redead)->size(), 1u);
    EXPECT_EQ(db->deliveries("org_a", shared_held.id, 100).size(), 1u);
    EXPECT_TRUE(db->deliveries("org_a", shared_kept.id, 100).empty());
    EXPECT_EQ(db->deliveries("org_a", slow.id, 100).size(), 1u);
    EXPECT_EQ(db->deliveries("org_a", retried.id, 100).size(), 1u);
    EXPECT_EQ(retention_ids(db->deliveries("org_b", theirs.id, 100)),
              retention_sorted({theirs_new}));

    // The numbers read what is left: the old dead letter is gone, the queue is whole.
    EXPECT_EQ(db->dead_letter_stats("org_a", t0 + 30 * retention_day).total, 1);
    EXPECT_EQ(db->stats("org_a", t0).dead_letters, 1);
    EXPECT_EQ(db->stats("org_a", t0).queue_depth, queued_before);
    EXPECT_EQ(db->stats("org_b", t0 - 1s).delivered, 1);

    // Nothing more to delete at the same time; a minute later, the edge goes too.
    EXPECT_FALSE(sweep(t0 + 30 * retention_day + 1min, 30).deleted_any());
    auto later = sweep(t0 + 30 * retention_day + 1min + 1ms, 30);
    EXPECT_EQ(later.deliveries, 1u);
    EXPECT_EQ(later.events, 1u);
    EXPECT_FALSE(db->attempts_of("org_a", edge));
}

TEST_P(retention_store, every_batch_is_bounded_and_takes_the_oldest_first) {
    make("org_a", "deploy.success");
    std::vector<std::string> ids;
    for (int i = 0; i < 5; ++i)
        ids.push_back(run_delivery("org_a", "deploy.success", retention_t0 + std::chrono::hours(i),
                                   {500, 200}, delivery_status::succeeded));
    const auto cutoff = retention_t0 + retention_day;
    auto first = db->prune_deliveries(cutoff, 2);
    EXPECT_EQ(first.deliveries, 2u);
    EXPECT_EQ(first.attempts, 4u);
    EXPECT_FALSE(db->attempts_of("org_a", ids[0]));
    EXPECT_FALSE(db->attempts_of("org_a", ids[1]));
    EXPECT_TRUE(db->attempts_of("org_a", ids[2]));
    EXPECT_EQ(all_deliveries(), 3);
    EXPECT_EQ(db->prune_deliveries(cutoff, 2).deliveries, 2u);
    auto last = db->prune_deliveries(cutoff, 2);
    EXPECT_EQ(last.deliveries, 1u);
    EXPECT_EQ(last.attempts, 2u);
    EXPECT_EQ(db->prune_deliveries(cutoff, 2).deliveries, 0u);
    EXPECT_EQ(logged(), 0);

    // The events, now referred to by nothing, in the same bounded steps along their order.
    ASSERT_EQ(events(), 5);
    auto e1 = db->prune_events(cutoff, std::nullopt, 2);
    EXPECT_EQ(e1.scanned, 2u);
    EXPECT_EQ(e1.deleted, 2u);
    ASSERT_TRUE(e1.last);
    EXPECT_EQ(e1.last->created_ms, std::chrono::duration_cast<std::chrono::milliseconds>(
                                       (retention_t0 + 1h).time_since_epoch())
                                       .count());
    EXPECT_EQ(events(), 3);
    auto e2 = db->prune_events(cutoff, e1.last, 2);
    EXPECT_EQ(e2.deleted, 2u);
    auto e3 = db->prune_events(cutoff, e2.last, 2);
    EXPECT_EQ(e3.scanned, 1u);
    EXPECT_EQ(e3.deleted, 1u);
    auto e4 = db->prune_events(cutoff, e3.last, 2);
    EXPECT_EQ(e4.scanned, 0u);
    EXPECT_FALSE(e4.last);
    EXPECT_EQ(events(), 0);

    // A sweep in batches of 2 over 5 deliveries: 2, 2, 1, then the events 2, 2, 1.
    for (int i = 0; i < 5; ++i)
        run_delivery("org_a", "deploy.success", retention_t0 + std::chrono::hours(i), {200},
                     delivery_status::succeeded);
    auto t = sweep(cutoff + 30 * retention_day, 30, 2);
    EXPECT_EQ(t.deliveries, 5u);
    EXPECT_EQ(t.attempts, 5u);
    EXPECT_EQ(t.events, 5u);
    EXPECT_EQ(t.batches, 6u);
    EXPECT_EQ(all_deliveries(), 0);
}

TEST_P(retention_store, the_events_walk_passes_events_still_in_use_once) {
    auto held = make("org_a", "deploy.success");
    for (int i = 0; i < 4; ++i)
        db->ingest("org_a", "deploy.success", "{}", retention_t0 + std::chrono::seconds(i));
    ASSERT_TRUE(db->set_enabled("org_a", held.id, false, retention_t0));
    for (int i = 0; i < 3; ++i) // no enabled webhook: events alone
        db->ingest("org_a", "deploy.success", "{}", retention_t0 + std::chrono::seconds(10 + i));
    ASSERT_EQ(events(), 7);

    // Batches of 3: the deliveries (none finished), then in use x3, in use + 2 alone, 1 alone.
    auto t = sweep(retention_t0 + 31 * retention_day, 30, 3, 10);
    EXPECT_EQ(t.deliveries, 0u);
    EXPECT_EQ(t.events, 3u);
    EXPECT_EQ(t.batches, 4u);
    EXPECT_EQ(events(), 4);
    EXPECT_EQ(db->deliveries("org_a", held.id, 100).size(), 4u);
}

INSTANTIATE_TEST_SUITE_P(stores, retention_store, gate::test::hooks_store_kinds(),
                         gate::test::hooks_store_name);
