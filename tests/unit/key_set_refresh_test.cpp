// When an issuer's key set is fetched: first use, unknown kid, age, failure; never twice
// within min_interval of the last fetch's end.
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
    r.fetched(t0);
    r.attempted(t0);
    EXPECT_FALSE(r.should_fetch(true, t0 + 1s));
    EXPECT_FALSE(r.should_fetch(false, t0 + key_set_refresh::min_interval - 1ms));
    EXPECT_TRUE(r.should_fetch(false, t0 + key_set_refresh::min_interval));
    EXPECT_FALSE(r.should_fetch(true, t0 + key_set_refresh::min_interval));
}

TEST(KeySetRefresh, AnOldSetIsFetchedAgain) {
    key_set_refresh r;
    r.fetched(t0);
    r.attempted(t0);
    EXPECT_FALSE(r.should_fetch(true, t0 + key_set_refresh::max_age - 1s));
    EXPECT_TRUE(r.should_fetch(true, t0 + key_set_refresh::max_age));
}

TEST(KeySetRefresh, AFailureIsRetriedAfterTheInterval) {
    key_set_refresh r;
    r.attempted(t0); // failed: nothing fetched
    EXPECT_FALSE(r.should_fetch(true, t0 + 5s));
    EXPECT_TRUE(r.should_fetch(true, t0 + key_set_refresh::min_interval));
    // A failed refetch keeps the set in hand and its age.
    r.fetched(t0);
    r.attempted(t0 + 1h);
    EXPECT_FALSE(r.should_fetch(true, t0 + 1h + 1s));
}
