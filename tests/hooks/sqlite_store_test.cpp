// The SQLite store in a temporary file: organizations never see each other's webhooks,
// ingest fans out to the enabled webhooks of that event, claims lease, attempts are
// recorded, the dead-letter queue is counted, paged and retried, and everything survives a
// reopen (a restart).
#include "hooks/store.hpp"
#include "tests/support/hooks_store_fixtures.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace gate::hooks;
using namespace std::chrono_literals;

namespace {

const clock_time t0{std::chrono::hours(500000)};

struct store_fixture : gate::test::hooks_sqlite_store {
    // Deliveries a claim's scan of waiting ones steps over (held ones are not among them).
    std::int64_t ready() const {
        return scalar("SELECT count(*) FROM deliveries INDEXED BY deliveries_ready WHERE "
                      "status = 'pending' AND held = 0");
    }
    // The webhook's one waiting delivery is held: not claimable at `at`, claimable once the
    // webhook is enabled again.
    void expect_held_until_enabled(const webhook& hook, clock_time at) {
        EXPECT_EQ(ready(), 0);
        EXPECT_TRUE(db->claim_due(at, 10, 30s).empty());
        db->set_enabled(hook.organization, hook.id, true, at);
        EXPECT_EQ(db->claim_due(at, 10, 30s).size(), 1u);
    }
    webhook make(const std::string& org, const std::string& event, bool secret = false) {
        webhook_spec spec{event, "https://r.example/" + org, std::nullopt};
        if (secret)
            spec.secret = "0123456789abcdef";
        return db->create_webhook(org, spec, t0);
    }
};

} // namespace

TEST_F(store_fixture, an_organization_sees_only_its_own_webhooks) {
    auto a = make("org_a", "deploy.success");
    auto b = make("org_b", "deploy.success");
    EXPECT_TRUE(a.id.starts_with("hook_"));
    EXPECT_EQ(db->list_webhooks("org_a").size(), 1u);
    EXPECT_TRUE(db->get_webhook("org_a", a.id));
    EXPECT_FALSE(db->get_webhook("org_a", b.id));
    EXPECT_FALSE(db->set_enabled("org_a", b.id, false, t0));
    EXPECT_FALSE(db->delete_webhook("org_a", b.id));
    EXPECT_TRUE(db->get_webhook("org_b", b.id)->enabled);
    EXPECT_FALSE(db->retry_dead_letters("org_a", b.id, t0));
}

TEST_F(store_fixture, an_event_reaches_the_enabled_webhooks_of_its_type_and_organization) {
    auto on = make("org_a", "deploy.failed", true);
    auto off = make("org_a", "deploy.failed");
    make("org_a", "deploy.success");
    make("org_b", "deploy.failed");
    db->set_enabled("org_a", off.id, false, t0);
    auto in = db->ingest("org_a", "deploy.failed", R"({"fn":"x"})", t0);
    EXPECT_TRUE(in.event_id.starts_with("evt_"));
    EXPECT_EQ(in.deliveries, 1u);
    auto due = db->claim_due(t0, 10, 30s);
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].d.webhook_id, on.id);
    EXPECT_EQ(due[0].secret, "0123456789abcdef");
    EXPECT_EQ(due[0].data, R"({"fn":"x"})");
    EXPECT_EQ(due[0].d.status, delivery_status::delivering);
    // Leased: not claimed again until the lease lapses (a crashed attempt is retried).
    EXPECT_TRUE(db->claim_due(t0 + 29s, 10, 30s).empty());
    EXPECT_EQ(db->claim_due(t0 + 30s, 10, 30s).size(), 1u);
}

TEST_F(store_fixture, attempts_are_recorded_and_the_last_failure_goes_to_the_queue) {
    auto hook = make("org_a", "rollback.success");
    db->ingest("org_a", "rollback.success", "{}", t0);
    auto first = db->claim_due(t0, 10, 30s).at(0);
    auto id = first.d.id;
    db->record({id,
                first.claim,
                {503, std::nullopt, "busy", std::nullopt},
                delivery_status::pending,
                t0 + 5s,
                false,
                t0});
    EXPECT_TRUE(db->claim_due(t0 + 4s, 10, 30s).empty());
    auto second = db->claim_due(t0 + 5s, 10, 30s);
    ASSERT_EQ(second.size(), 1u);
    db->record({id,
                second[0].claim,
                {std::nullopt, "connection refused", std::nullopt, std::nullopt},
                delivery_status::dead,
                t0 + 6s,
                false,
                t0 + 6s});
    auto history = db->deliveries("org_a", hook.id, 10);
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(history[0].attempts, 2);
    EXPECT_EQ(history[0].status, delivery_status::dead);
    EXPECT_EQ(history[0].last_error, "connection refused");
    auto stats = db->dead_letter_stats("org_a", t0 + 2h);
    EXPECT_EQ(stats.total, 1);
    ASSERT_EQ(stats.types.size(), 1u);
    EXPECT_EQ(stats.types[0].event_type, "rollback.success");
    EXPECT_EQ(stats.under_day, 1);
    EXPECT_EQ(db->dead_letter_stats("org_b", t0).total, 0);
    // A retry makes it due again, once; success takes it out of the queue.
    EXPECT_EQ(db->retry_dead_letters("org_a", hook.id, t0 + 3h), 1u);
    auto again = db->claim_due(t0 + 3h, 10, 30s);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_TRUE(again[0].d.dead_letter_retry);
    // Still in the queue while the retry runs: only success takes it out.
    EXPECT_EQ(db->dead_letter_stats("org_a", t0 + 3h).total, 1);
    EXPECT_EQ(db->dead_letters("org_a", {}, std::nullopt, 10).entries.size(), 1u);
    db->record({id,
                again[0].claim,
                {200, std::nullopt, "ok", std::nullopt},
                delivery_status::succeeded,
                t0 + 3h,
                false,
                t0 + 3h});
    EXPECT_EQ(db->dead_letter_stats("org_a", t0 + 3h).total, 0);
}

TEST_F(store_fixture, a_410_disables_the_webhook) {
    auto hook = make("org_a", "activation.error");
    db->ingest("org_a", "activation.error", "{}", t0);
    auto due = db->claim_due(t0, 10, 30s).at(0);
    db->record({due.d.id,
                due.claim,
                {410, std::nullopt, "", std::nullopt},
                delivery_status::dead,
                t0,
                true,
                t0});
    auto w = db->get_webhook("org_a", hook.id);
    EXPECT_FALSE(w->enabled);
    EXPECT_NE(w->disabled_reason->find("410"), std::string::npos);
    EXPECT_EQ(db->ingest("org_a", "activation.error", "{}", t0).deliveries, 0u);
    // Enabling it again clears the reason.
    EXPECT_FALSE(db->set_enabled("org_a", hook.id, true, t0)->disabled_reason);
}

TEST_F(store_fixture, the_dead_letter_queue_pages_and_filters) {
    auto a = make("org_a", "deploy.success");
    auto b = make("org_a", "deploy.failed");
    for (int i = 0; i < 5; ++i) {
        db->ingest("org_a", "deploy.success", "{}", t0 + std::chrono::seconds(i));
        db->ingest("org_a", "deploy.failed", "{}", t0 + std::chrono::seconds(i));
    }
    int n = 0;
    for (auto& due : db->claim_due(t0 + 1h, 100, 30s))
        db->record({due.d.id,
                    due.claim,
                    {500, std::nullopt, std::nullopt, std::nullopt},
                    delivery_status::dead,
                    t0,
                    false,
                    t0 + std::chrono::seconds(n++)});
    std::vector<std::string> seen;
    std::optional<std::string> cursor;
    do {
        auto page = db->dead_letters("org_a", {}, cursor, 3);
        EXPECT_LE(page.entries.size(), 3u);
        for (auto& e : page.entries)
            seen.push_back(e.id);
        cursor = page.next_cursor;
    } while (cursor);
    EXPECT_EQ(seen.size(), 10u);
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 10u);
    EXPECT_EQ(db->dead_letters("org_a", {"deploy.failed", std::nullopt}, std::nullopt, 100)
                  .entries.size(),
              5u);
    EXPECT_EQ(db->dead_letters("org_a", {std::nullopt, a.id}, std::nullopt, 100).entries.size(),
              5u);
    EXPECT_TRUE(db->dead_letters("org_b", {}, std::nullopt, 100).entries.empty());
    EXPECT_TRUE(db->delete_webhook("org_a", b.id)); // its deliveries go with it
    EXPECT_EQ(db->dead_letter_stats("org_a", t0).total, 5);
}

TEST_F(store_fixture, everything_survives_a_reopen) {
    auto hook = make("org_a", "usage.threshold");
    db->ingest("org_a", "usage.threshold", R"({"pct":91})", t0);
    db.reset();
    db = database->open(); // migrations are not run twice
    EXPECT_TRUE(db->get_webhook("org_a", hook.id));
    auto due = db->claim_due(t0, 10, 30s);
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].data, R"({"pct":91})");
}

TEST_F(store_fixture, a_disabled_webhooks_deliveries_wait_until_it_is_enabled_again) {
    auto hook = make("org_a", "deploy.success");
    db->ingest("org_a", "deploy.success", "{}", t0);
    db->set_enabled("org_a", hook.id, false, t0);
    EXPECT_TRUE(db->claim_due(t0 + 1h, 10, 30s).empty());
    EXPECT_EQ(db->depths().first, 1); // still queued, not lost
    db->set_enabled("org_a", hook.id, true, t0 + 1h);
    EXPECT_EQ(db->claim_due(t0 + 1h, 10, 30s).size(), 1u);
}

TEST_F(store_fixture, a_disabled_webhooks_backlog_is_held_out_of_the_claims_way) {
    auto off = make("org_a", "deploy.success");
    auto on = make("org_a", "deploy.failed");
    for (int i = 0; i < 50; ++i)
        db->ingest("org_a", "deploy.success", "{}", t0);
    db->ingest("org_a", "deploy.failed", "{}", t0 + 1s);
    EXPECT_EQ(ready(), 51);
    ASSERT_TRUE(db->set_enabled("org_a", off.id, false, t0 + 2s));
    EXPECT_EQ(ready(), 1); // a claim no longer steps over the 50 that cannot be sent
    auto due = db->claim_due(t0 + 3s, 10, 30s);
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].d.webhook_id, on.id);
    EXPECT_EQ(db->depths().first, 51); // held deliveries are still queued
    EXPECT_FALSE(db->set_enabled("org_b", off.id, true, t0 + 4s)); // not theirs: nothing released
    EXPECT_EQ(ready(), 0);
    ASSERT_TRUE(db->set_enabled("org_a", off.id, true, t0 + 4s));
    EXPECT_EQ(ready(), 50);
    EXPECT_EQ(db->claim_due(t0 + 5s, 100, 30s).size(), 50u);
}

TEST_F(store_fixture, an_attempt_in_flight_when_its_webhook_is_disabled_comes_back_held) {
    auto hook = make("org_a", "deploy.success");
    db->ingest("org_a", "deploy.success", "{}", t0);
    auto due = db->claim_due(t0, 10, 30s).at(0);
    db->set_enabled("org_a", hook.id, false, t0 + 1s);
    db->record({due.d.id,
                due.claim,
                {503, std::nullopt, "", std::nullopt},
                delivery_status::pending,
                t0 + 2s,
                false,
                t0 + 2s});
    expect_held_until_enabled(hook, t0 + 1h);
}

TEST_F(store_fixture, a_410_holds_the_webhooks_other_waiting_deliveries) {
    auto hook = make("org_a", "activation.error");
    db->ingest("org_a", "activation.error", "{}", t0);
    db->ingest("org_a", "activation.error", "{}", t0 + 1s);
    auto first = db->claim_due(t0 + 1s, 1, 30s).at(0);
    db->record({first.d.id,
                first.claim,
                {410, std::nullopt, "", std::nullopt},
                delivery_status::dead,
                t0 + 2s,
                true,
                t0 + 2s});
    expect_held_until_enabled(hook, t0 + 3s);
}

TEST_F(store_fixture, dead_letters_retried_into_a_disabled_webhook_wait_held) {
    auto hook = make("org_a", "deploy.failed");
    db->ingest("org_a", "deploy.failed", "{}", t0);
    auto due = db->claim_due(t0, 10, 30s).at(0);
    db->record({due.d.id,
                due.claim,
                {500, std::nullopt, "", std::nullopt},
                delivery_status::dead,
                t0,
                false,
                t0});
    db->set_enabled("org_a", hook.id, false, t0 + 1s);
    EXPECT_EQ(db->retry_dead_letters("org_a", hook.id, t0 + 2s), 1u);
    expect_held_until_enabled(hook, t0 + 3s);
}

TEST_F(store_fixture, an_attempt_that_outlived_its_lease_does_not_overwrite_the_newer_one) {
    make("org_a", "deploy.success");
    db->ingest("org_a", "deploy.success", "{}", t0);
    auto slow = db->claim_due(t0, 10, 30s).at(0);
    auto newer = db->claim_due(t0 + 31s, 10, 30s).at(0); // the lease lapsed: claimed again
    EXPECT_EQ(slow.d.id, newer.d.id);
    EXPECT_NE(slow.claim, newer.claim);
    db->record({newer.d.id,
                newer.claim,
                {200, std::nullopt, "ok", std::nullopt},
                delivery_status::succeeded,
                t0 + 32s,
                false,
                t0 + 32s});
    // The slow attempt ends later with a failure: ignored.
    db->record({slow.d.id,
                slow.claim,
                {std::nullopt, "timeout", std::nullopt, std::nullopt},
                delivery_status::dead,
                t0 + 40s,
                false,
                t0 + 40s});
    auto d = db->deliveries("org_a", slow.d.webhook_id, 10).at(0);
    EXPECT_EQ(d.status, delivery_status::succeeded);
    EXPECT_EQ(d.attempts, 1);
    EXPECT_EQ(db->dead_letter_stats("org_a", t0 + 1h).total, 0);
}
