// The memory of verified tokens: each remembered until its bound or ttl_seconds, whichever
// comes first; a key its issuer withdrew takes its tokens (and the issuer's kid-less tokens)
// with it at once, never another issuer's or another key's; bounded in size. Time passed in.
#include "gateway/auth/verified_tokens.hpp"

#include <gtest/gtest.h>

using gate::gateway::verified_tokens;
using gate::policy::caller_ref;
using gate::policy::principal;

namespace {

constexpr std::int64_t t0 = 1'800'000'000;
constexpr std::int64_t far = t0 + 3600;

caller_ref who(std::string subject) {
    return std::make_shared<const principal>(principal{std::move(subject), "iss", {}, {}});
}

} // namespace

TEST(VerifiedTokens, RemembersUntilItsBoundOrTheTtl) {
    verified_tokens m;
    m.remember("long", who("alice"), 0, "A", t0, far);
    m.remember("short", who("bob"), 0, "A", t0, t0 + 5);
    ASSERT_NE(m.find("long", t0), nullptr);
    EXPECT_EQ(m.find("long", t0)->subject, "alice");
    EXPECT_NE(m.find("short", t0 + 4), nullptr);
    EXPECT_EQ(m.find("short", t0 + 5), nullptr); // its bound (its expiry, its set's refetch)
    EXPECT_NE(m.find("long", t0 + verified_tokens::ttl_seconds - 1), nullptr);
    EXPECT_EQ(m.find("long", t0 + verified_tokens::ttl_seconds), nullptr);
    EXPECT_EQ(m.size(), 0u); // what was found past its time is gone
    EXPECT_EQ(m.find("never", t0), nullptr);
}

TEST(VerifiedTokens, ABoundAlreadyPastIsNotRemembered) {
    verified_tokens m;
    m.remember("stale", who("alice"), 0, "A", t0, t0); // its key set is due for a refetch now
    EXPECT_EQ(m.size(), 0u);
    EXPECT_EQ(m.find("stale", t0), nullptr);
}

TEST(VerifiedTokens, AWithdrawnKeyTakesItsTokensAtOnce) {
    verified_tokens m;
    m.remember("by-a", who("alice"), 0, "A", t0, far);
    m.remember("by-a-too", who("bob"), 0, "A", t0, far);
    m.remember("by-b", who("carol"), 0, "B", t0, far);
    m.remember("other-issuer-a", who("dave"), 1, "A", t0, far);
    const std::vector<std::string> gone{"A"};
    EXPECT_EQ(m.forget(0, gone), 2u);
    EXPECT_EQ(m.find("by-a", t0 + 1), nullptr);
    EXPECT_EQ(m.find("by-a-too", t0 + 1), nullptr);
    // Another key of the issuer, and the same kid at another issuer, are untouched.
    EXPECT_NE(m.find("by-b", t0 + 1), nullptr);
    EXPECT_NE(m.find("other-issuer-a", t0 + 1), nullptr);
}

TEST(VerifiedTokens, ATokenWithoutKidGoesWithAnyKeyOfItsIssuer) {
    verified_tokens m;
    m.remember("no-kid", who("alice"), 0, "", t0, far);
    m.remember("no-kid-elsewhere", who("bob"), 1, "", t0, far);
    m.remember("by-b", who("carol"), 0, "B", t0, far);
    EXPECT_EQ(m.forget(0, {}), 0u); // a refetch that withdrew nothing forgets nothing
    const std::vector<std::string> gone{"A"};
    EXPECT_EQ(m.forget(0, gone), 1u);
    EXPECT_EQ(m.find("no-kid", t0 + 1), nullptr);
    EXPECT_NE(m.find("no-kid-elsewhere", t0 + 1), nullptr);
    EXPECT_NE(m.find("by-b", t0 + 1), nullptr);
}

TEST(VerifiedTokens, RememberedAgainItTakesTheNewKey) {
    verified_tokens m;
    m.remember("t", who("alice"), 0, "A", t0, far);
    m.remember("t", who("alice"), 0, "B", t0 + 1, far);
    const std::vector<std::string> gone{"A"};
    EXPECT_EQ(m.forget(0, gone), 0u);
    EXPECT_NE(m.find("t", t0 + 2), nullptr);
}

TEST(VerifiedTokens, AFloodOfDistinctTokensStartsTheMemoryOver) {
    verified_tokens m;
    for (std::size_t i = 0; i < verified_tokens::max_entries; ++i)
        m.remember("t" + std::to_string(i), who("x"), 0, "A", t0, far);
    EXPECT_EQ(m.size(), verified_tokens::max_entries);
    m.remember("one more", who("y"), 0, "A", t0, far);
    EXPECT_EQ(m.size(), 1u);
    EXPECT_NE(m.find("one more", t0), nullptr);
}
