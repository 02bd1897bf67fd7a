#include "hooks/retry_after.hpp"

#include <algorithm>
#include <array>
#include <charconv>

namespace gate::hooks {

namespace {

using namespace std::chrono;

// A cursor over the value; every step fails (returns false) on anything unexpected.
struct reader {
    std::string_view s;

    bool literal(std::string_view want) {
        if (!s.starts_with(want))
            return false;
        s.remove_prefix(want.size());
        return true;
    }
    bool spaces() { // one or more
        if (s.empty() || s.front() != ' ')
            return false;
        while (!s.empty() && s.front() == ' ')
            s.remove_prefix(1);
        return true;
    }
    bool number(int digits_min, int digits_max, int& out) {
        std::size_t n = 0;
        while (n < s.size() && n < static_cast<std::size_t>(digits_max) && s[n] >= '0' &&
               s[n] <= '9')
            ++n;
        if (n < static_cast<std::size_t>(digits_min))
            return false;
        std::from_chars(s.data(), s.data() + n, out);
        s.remove_prefix(n);
        return true;
    }
    bool month(unsigned& out) {
        static constexpr std::array<std::string_view, 12> names = {
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
        for (unsigned i = 0; i < names.size(); ++i)
            if (literal(names[i])) {
                out = i + 1;
                return true;
            }
        return false;
    }
    // A day name, short ("Sun") or long ("Sunday"); which one is not checked against the date.
    bool day_name(bool long_form) {
        static constexpr std::array<std::string_view, 7> names = {
            "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
        for (auto name : names)
            if (literal(long_form ? name : name.substr(0, 3)))
                return true;
        return false;
    }
    bool time_of_day(int& h, int& m, int& sec) {
        return number(2, 2, h) && literal(":") && number(2, 2, m) && literal(":") &&
               number(2, 2, sec) && h < 24 && m < 60 && sec < 61;
    }
};

std::optional<system_clock::time_point> make_time(int y, unsigned mon, int d, int h, int m, int s) {
    year_month_day ymd{year(y), month(mon), day(static_cast<unsigned>(d))};
    if (!ymd.ok())
        return std::nullopt;
    return sys_days(ymd) + hours(h) + minutes(m) + seconds(s);
}

std::optional<system_clock::time_point> imf_fixdate(std::string_view v) {
    reader r{v};
    int d = 0, y = 0, h = 0, m = 0, s = 0;
    unsigned mon = 0;
    if (r.day_name(false) && r.literal(", ") && r.number(2, 2, d) && r.literal(" ") &&
        r.month(mon) && r.literal(" ") && r.number(4, 4, y) && r.literal(" ") &&
        r.time_of_day(h, m, s) && r.literal(" GMT") && r.s.empty())
        return make_time(y, mon, d, h, m, s);
    return std::nullopt;
}

std::optional<system_clock::time_point> rfc850_date(std::string_view v,
                                                    system_clock::time_point now) {
    reader r{v};
    int d = 0, yy = 0, h = 0, m = 0, s = 0;
    unsigned mon = 0;
    if (r.day_name(true) && r.literal(", ") && r.number(2, 2, d) && r.literal("-") &&
        r.month(mon) && r.literal("-") && r.number(2, 2, yy) && r.literal(" ") &&
        r.time_of_day(h, m, s) && r.literal(" GMT") && r.s.empty()) {
        // RFC 9110: a two-digit year that would be more than 50 years ahead is the most
        // recent past year with those digits.
        int this_year = static_cast<int>(year_month_day(floor<days>(now)).year());
        int y = this_year - this_year % 100 + yy;
        if (y > this_year + 50)
            y -= 100;
        return make_time(y, mon, d, h, m, s);
    }
    return std::nullopt;
}

std::optional<system_clock::time_point> asctime_date(std::string_view v) {
    reader r{v};
    int d = 0, y = 0, h = 0, m = 0, s = 0;
    unsigned mon = 0;
    if (r.day_name(false) && r.literal(" ") && r.month(mon) && r.spaces() && r.number(1, 2, d) &&
        r.literal(" ") && r.time_of_day(h, m, s) && r.literal(" ") && r.number(4, 4, y) &&
        r.s.empty())
        return make_time(y, mon, d, h, m, s);
    return std::nullopt;
}

} // namespace

std::optional<system_clock::time_point> parse_http_date(std::string_view v,
                                                        system_clock::time_point now) {
    if (auto t = imf_fixdate(v))
        return t;
    if (auto t = rfc850_date(v, now))
        return t;
    return asctime_date(v);
}

std::optional<milliseconds> parse_retry_after(std::string_view v, system_clock::time_point now) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
        v.remove_suffix(1);
    if (!v.empty() && v.front() >= '0' && v.front() <= '9') {
        std::int64_t secs = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), secs);
        if (ec != std::errc() || end != v.data() + v.size())
            return std::nullopt;
        // Longer than any retry schedule; keeps the conversion to milliseconds in range.
        constexpr std::int64_t ten_years = 10LL * 365 * 24 * 3600;
        return duration_cast<milliseconds>(seconds(std::min(secs, ten_years)));
    }
    auto when = parse_http_date(v, now);
    if (!when)
        return std::nullopt;
    if (*when <= now)
        return milliseconds(0);
    return duration_cast<milliseconds>(*when - now);
}

} // namespace gate::hooks
