#include "hooks/retry_after.hpp"

#include <gtest/gtest.h>

namespace gate::hooks {
namespace {

using namespace std::chrono;

// 1994-11-06 08:49:37 UTC, the example date of RFC 9110.
const system_clock::time_point rfc_example = sys_days(year(1994) / 11 / 6) + 8h + 49min + 37s;

TEST(RetryAfter, DelaySeconds) {
    auto now = system_clock::now();
    EXPECT_EQ(parse_retry_after("120", now), milliseconds(120000));
    EXPECT_EQ(parse_retry_after("0", now), milliseconds(0));
    EXPECT_EQ(parse_retry_after(" 7 ", now), milliseconds(7000));
}

TEST(RetryAfter, AllThreeDateFormats) {
    auto now = sys_days(year(2026) / 11 / 22) + 0s;
    EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", now), rfc_example);
    EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", now), rfc_example);
    EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994", now), rfc_example);
    EXPECT_EQ(parse_http_date("Sun Nov 16 08:49:37 1994", now), rfc_example + days(10));
}

TEST(RetryAfter, TwoDigitYearIsNeverMoreThanFiftyYearsAhead) {
    auto now = sys_days(year(2026) / 11 / 22) + 0s;
    EXPECT_EQ(parse_http_date("Friday, 27-Nov-26 10:00:00 GMT", now),
              sys_days(year(2026) / 11 / 27) + 10h);
    EXPECT_EQ(parse_http_date("Monday, 01-Jan-76 00:00:00 GMT", now),
              sys_days(year(2076) / 1 / 1) + 0s);
    EXPECT_EQ(parse_http_date("Monday, 01-Jan-77 00:00:00 GMT", now),
              sys_days(year(1977) / 1 / 1) + 0s);
}

TEST(RetryAfter, DateMeasuredFromNow) {
    auto now = rfc_example - 90s;
    EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), milliseconds(90000));
    // A date already past asks for no wait.
    EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", rfc_example + 1h),
              milliseconds(0));
}

TEST(RetryAfter, RefusesWhatIsNeitherForm) {
    auto now = system_clock::now();
    for (auto bad : {"", "soon", "-5", "1.5", "12abc", "Sun, 06 Nov 1994 08:49:37 UTC",
                     "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
                     "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
                     "Sun, 06 Nov 1994 08:49:37 GMT trailing"})
        EXPECT_EQ(parse_retry_after(bad, now), std::nullopt) << bad;
}

TEST(RetryAfter, HugeDelayStaysInRange) {
    auto r = parse_retry_after("99999999999", system_clock::now());
    ASSERT_TRUE(r);
    EXPECT_GT(*r, hours(24 * 365));
    EXPECT_EQ(parse_retry_after("99999999999999999999999", system_clock::now()), std::nullopt);
}

} // namespace
} // namespace gate::hooks
