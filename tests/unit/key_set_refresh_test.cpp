// When an issuer's key set is fetched: first use, unknown kid, its lifetime passed, failure;
// never twice within min_interval of the last fetch's end.
#include "protocol/jose/key_set_refresh.hpp"

#include <gtest/gtest.h>

using gate::protocol::jose::key_set_refresh;
using namespace std::chrono_literals;

namespace {
const key_set_refresh::clock::time_point t0{1000h};
}

TEST(KeySetRefresh, FetchesOnFirstUse) {
    key_set_refresh r;
    EXPECT_TRUE(r.should_fetch(false, t0));
}

TEST(KeySetRefresh, AnUnknownKidRefetchesOncePerInterval) {
    key_set_refresh r;
    r.fetched(t0, key_set_refresh::default_lifetime);
    r.attempted(t0);
    EXPECT_FALSE(r.should_fetch(true, t0 + 1s));
    EXPECT_FALSE(r.should_fetch(false, t0 + key_set_refresh::min_interval - 1ms));
    EXPECT_TRUE(r.should_fetch(false, t0 + key_set_refresh::min_interval));
    EXPECT_FALSE(r.should_fetch(true, t0 + key_set_refresh::min_interval));
}

TEST(KeySetRefresh, AKnownKidIsNotRefetchedBeforeTheSetsLifetimeAndIsAfter) {
    key_set_refresh r;
    r.fetched(t0, 2min);
    r.attempted(t0);
    EXPECT_FALSE(r.should_fetch(true, t0 + 2min - 1ms));
    EXPECT_TRUE(r.should_fetch(true, t0 + 2min));
}

TEST(KeySetRefresh, TheLifetimeIsBounded) {
    key_set_refresh r;
    r.fetched(t0, 0s); // no-store: as short as allowed
    r.attempted(t0);
    EXPECT_FALSE(r.should_fetch(true, t0 + key_set_refresh::min_interval - 1ms));
    EXPECT_TRUE(r.should_fetch(true, t0 + key_set_refresh::min_interval));
    r.fetched(t0, -5h); // an Expires in the past
    EXPECT_TRUE(r.should_fetch(true, t0 + key_set_refresh::min_interval));
    r.fetched(t0, 24h * 365);
    EXPECT_FALSE(r.should_fetch(true, t0 + key_set_refresh::max_lifetime - 1s));
    EXPECT_TRUE(r.should_fetch(true, t0 + key_set_refresh::max_lifetime));
}

TEST(KeySetRefresh, AFailureIsRetriedAfterTheInterval) {
    key_set_refresh r;
    r.attempted(t0); // failed: nothing fetched
    EXPECT_FALSE(r.should_fetch(true, t0 + 5s));
    EXPECT_TRUE(r.should_fetch(true, t0 + key_set_refresh::min_interval));
    // A failed refetch keeps the set in hand and its age; the next try waits min_interval.
    r.fetched(t0, key_set_refresh::default_lifetime);
    r.attempted(t0 + 1h);
    EXPECT_FALSE(r.should_fetch(true, t0 + 1h + 1s));
    EXPECT_TRUE(r.should_fetch(true, t0 + 1h + key_set_refresh::min_interval));
}

TEST(KeySetRefresh, ATokenMayBeRememberedUntilTheSetIsDue) {
    key_set_refresh r;
    EXPECT_FALSE(r.due_at()); // no set in hand: nothing verified with it
    r.fetched(t0, 2min);
    r.attempted(t0);
    ASSERT_TRUE(r.due_at());
    EXPECT_EQ(*r.due_at(), t0 + 2min);
    EXPECT_FALSE(r.should_fetch(true, *r.due_at() - 1ms));
    EXPECT_TRUE(r.should_fetch(true, *r.due_at()));
    // A failed refetch keeps the set: it is due again min_interval after that attempt.
    r.attempted(t0 + 1h);
    EXPECT_EQ(*r.due_at(), t0 + 1h + key_set_refresh::min_interval);
    EXPECT_FALSE(r.should_fetch(true, *r.due_at() - 1ms));
    EXPECT_TRUE(r.should_fetch(true, *r.due_at()));
}
