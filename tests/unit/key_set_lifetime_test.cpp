// A key set's lifetime from its answer's caching headers: Cache-Control no-store/no-cache, then
// max-age, then Expires minus Date (or now), minus Age, else the default; always bounded to
// [min_interval, max_lifetime]; garbage is ignored and huge numbers cannot overflow.
#include "protocol/jose/key_set_lifetime.hpp"

#include <gtest/gtest.h>

using gate::protocol::jose::http_date_seconds;
using gate::protocol::jose::key_set_caching;
using gate::protocol::jose::key_set_lifetime;
using gate::protocol::jose::key_set_refresh;
using namespace std::chrono_literals;

namespace {

// Sun, 06 Nov 1994 08:49:37 GMT
const std::chrono::system_clock::time_point now{784111777s};

std::chrono::seconds lifetime(std::string cache_control, std::string expires = "",
                              std::string date = "", std::string age = "") {
    return key_set_lifetime(
        {std::move(cache_control), std::move(expires), std::move(date), std::move(age)}, now);
}

constexpr auto min = key_set_refresh::min_interval;
constexpr auto max = key_set_refresh::max_lifetime;
constexpr auto fallback = key_set_refresh::default_lifetime;

} // namespace

TEST(KeySetLifetime, MaxAgeWithinTheBounds) {
    EXPECT_EQ(lifetime("max-age=600"), 600s);
    EXPECT_EQ(lifetime("public, MAX-AGE = 120 , must-revalidate"), 120s);
    EXPECT_EQ(lifetime("max-age=\"90\""), 90s);
    EXPECT_EQ(lifetime("max-age=300, max-age=60"), 60s); // repeated: the smallest
    EXPECT_EQ(lifetime("s-maxage=20, max-age=200"), 200s);
    // max-age wins over Expires.
    EXPECT_EQ(lifetime("max-age=100", "Sun, 06 Nov 1994 09:49:37 GMT"), 100s);
}

TEST(KeySetLifetime, NoStoreAndNoCacheAreAsShortAsAllowed) {
    EXPECT_EQ(lifetime("no-store"), min);
    EXPECT_EQ(lifetime("max-age=600, no-cache"), min);
    EXPECT_EQ(lifetime("no-cache=\"set-cookie, x\", max-age=600"), min);
    EXPECT_EQ(lifetime("max-age=0"), min);
    EXPECT_EQ(lifetime("max-age=3"), min);
}

TEST(KeySetLifetime, AbsentHeadersGetTheDefault) {
    EXPECT_EQ(fallback, 5min);
    EXPECT_EQ(lifetime(""), fallback);
    EXPECT_EQ(lifetime("public, must-revalidate"), fallback);
    EXPECT_EQ(lifetime("", "", "Sun, 06 Nov 1994 08:49:37 GMT", "30"), fallback);
}

TEST(KeySetLifetime, ExpiresMinusDateOrNow) {
    EXPECT_EQ(lifetime("", "Sun, 06 Nov 1994 09:19:37 GMT", "Sun, 06 Nov 1994 09:09:37 GMT"), 600s);
    EXPECT_EQ(lifetime("", "Sun, 06 Nov 1994 08:59:37 GMT"), 600s); // no Date: now
    EXPECT_EQ(lifetime("", "Sun, 06 Nov 1994 08:59:37 GMT", "yesterday"), 600s);
    EXPECT_EQ(lifetime("", "Sunday, 06-Nov-94 08:59:37 GMT"), 600s);
    EXPECT_EQ(lifetime("", "Sun Nov  6 08:59:37 1994"), 600s);
    EXPECT_EQ(lifetime("", "Sat, 05 Nov 1994 08:49:37 GMT"), min); // in the past
    EXPECT_EQ(lifetime("", "Fri, 31 Dec 9999 23:59:59 GMT"), max);
}

TEST(KeySetLifetime, AgeIsSubtracted) {
    EXPECT_EQ(lifetime("max-age=600", "", "", "100"), 500s);
    EXPECT_EQ(lifetime("max-age=600", "", "", "99999999999999999999999"), min);
    EXPECT_EQ(lifetime("max-age=600", "", "", "-100"), 600s); // garbage Age: ignored
}

TEST(KeySetLifetime, GarbageIsIgnored) {
    for (auto cc : {"max-age=abc", "max-age=-5", "max-age=1.5", "max-age=", "max-age", "max-age=\"",
                    "max-age=60s", ",,,=,", "=", "\"max-age=60\"", "max-age=0x10"})
        EXPECT_EQ(lifetime(cc), fallback) << cc;
    for (auto expires : {"0", "-1", "tomorrow", "Sun, 32 Nov 1994 08:49:37 GMT",
                         "Sun, 31 Feb 1995 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
                         "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
                         "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 19945 08:49:37 GMT"})
        EXPECT_EQ(lifetime("", expires), fallback) << expires;
    // A garbage max-age falls through to Expires.
    EXPECT_EQ(lifetime("max-age=soon", "Sun, 06 Nov 1994 08:59:37 GMT"), 600s);
}

TEST(KeySetLifetime, HugeNumbersAreBoundedWithoutOverflow) {
    EXPECT_EQ(lifetime("max-age=7200"), max);
    EXPECT_EQ(lifetime("max-age=2147483648"), max);
    EXPECT_EQ(lifetime("max-age=99999999999999999999999999999999999999999"), max);
    EXPECT_EQ(lifetime("max-age=" + std::string(10000, '9')), max);
}

TEST(KeySetLifetime, HttpDates) {
    EXPECT_EQ(http_date_seconds("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
    EXPECT_EQ(http_date_seconds("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777);
    EXPECT_EQ(http_date_seconds("Sun Nov  6 08:49:37 1994"), 784111777);
    EXPECT_EQ(http_date_seconds("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
    EXPECT_EQ(http_date_seconds("Fri, 31 Dec 9999 23:59:59 GMT"), 253402300799);
    EXPECT_EQ(http_date_seconds(""), std::nullopt);
    EXPECT_EQ(http_date_seconds("Sun, 06 Nov 1994 08:49:37"), std::nullopt);
}
