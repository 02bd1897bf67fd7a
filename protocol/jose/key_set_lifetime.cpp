#include "protocol/jose/key_set_lifetime.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace gate::protocol::jose {

namespace {

using std::chrono::seconds;

// delta-seconds greater than this count as this (RFC 9111 section 1.2.2).
constexpr std::int64_t delta_cap = std::int64_t{1} << 31;

bool is_ows(char c) {
    return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_ows(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_ows(s.back()))
        s.remove_suffix(1);
    return s;
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return ascii_lower(x) == ascii_lower(y);
           });
}

// Digits only (no sign, no fraction), saturating at `cap`; nullopt otherwise.
std::optional<std::int64_t> digits(std::string_view s, std::int64_t cap) {
    if (s.empty())
        return std::nullopt;
    std::int64_t n = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return std::nullopt;
        n = std::min<std::int64_t>(n * 10 + (c - '0'), cap);
    }
    return n;
}

std::optional<std::int64_t> delta_seconds(std::string_view s) {
    return digits(trim(s), delta_cap);
}

struct freshness_directives {
    bool no_reuse = false; // no-store or no-cache
    std::optional<std::int64_t> max_age;
};

// Cache-Control directives (RFC 9111 section 5.2): token names, case-insensitive, each with
// an optional token or quoted-string argument (whose commas do not end it).
freshness_directives read_cache_control(std::string_view cc) {
    freshness_directives d;
    std::size_t i = 0;
    while (i < cc.size()) {
        std::size_t name_end = std::min(cc.find_first_of("=,", i), cc.size());
        auto name = trim(cc.substr(i, name_end - i));
        std::string value;
        i = name_end;
        if (i < cc.size() && cc[i] == '=') {
            ++i;
            while (i < cc.size() && is_ows(cc[i]))
                ++i;
            if (i < cc.size() && cc[i] == '"') {
                for (++i; i < cc.size() && cc[i] != '"'; ++i) {
                    if (cc[i] == '\\' && i + 1 < cc.size())
                        ++i;
                    value += cc[i];
                }
            }
            std::size_t end = std::min(cc.find(',', i), cc.size());
            if (value.empty())
                value = trim(cc.substr(i, end - i));
            i = end;
        }
        ++i; // past the comma
        if (iequals(name, "no-store") || iequals(name, "no-cache"))
            d.no_reuse = true;
        else if (iequals(name, "max-age"))
            if (auto n = delta_seconds(value))
                d.max_age = d.max_age ? std::min(*d.max_age, *n) : *n;
    }
    return d;
}

// "08:49:37" as seconds into the day.
std::optional<std::int64_t> time_of_day(std::string_view t) {
    if (t.size() != 8 || t[2] != ':' || t[5] != ':')
        return std::nullopt;
    auto h = digits(t.substr(0, 2), 99), m = digits(t.substr(3, 2), 99),
         s = digits(t.substr(6, 2), 99);
    if (!h || !m || !s || *h > 23 || *m > 59 || *s > 60)
        return std::nullopt;
    return *h * 3600 + *m * 60 + *s;
}

std::optional<unsigned> month_number(std::string_view m) {
    static constexpr std::array<std::string_view, 12> names{
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (unsigned i = 0; i < names.size(); ++i)
        if (m == names[i])
            return i + 1;
    return std::nullopt;
}

} // namespace

std::optional<std::int64_t> http_date_seconds(std::string_view text) {
    std::vector<std::string_view> t;
    for (std::size_t i = 0; i < text.size();) {
        std::size_t end = std::min(text.find_first_of(" ,-", i), text.size());
        if (end > i)
            t.push_back(text.substr(i, end - i));
        i = end + 1;
    }
    std::string_view day, month, year, clock;
    if (t.size() == 6 && t[5] == "GMT") { // IMF-fixdate, rfc850-date
        day = t[1], month = t[2], year = t[3], clock = t[4];
    } else if (t.size() == 5) { // asctime-date
        month = t[1], day = t[2], clock = t[3], year = t[4];
    } else {
        return std::nullopt;
    }
    auto d = day.size() <= 2 ? digits(day, 99) : std::nullopt;
    auto m = month_number(month);
    auto y = (year.size() == 2 || year.size() == 4) ? digits(year, 9999) : std::nullopt;
    auto s = time_of_day(clock);
    if (!d || !m || !y || !s)
        return std::nullopt;
    if (year.size() == 2) // rfc850-date: a two-digit year is the nearest one not far ahead
        *y += *y < 70 ? 2000 : 1900;
    std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(*y)), std::chrono::month(*m),
                                    std::chrono::day(static_cast<unsigned>(*d))};
    if (!ymd.ok())
        return std::nullopt;
    return static_cast<std::int64_t>(std::chrono::sys_days(ymd).time_since_epoch().count()) *
               86400 +
           *s;
}

seconds key_set_lifetime(const key_set_caching& headers,
                         std::chrono::system_clock::time_point now) {
    using refresh = key_set_refresh;
    auto cc = read_cache_control(headers.cache_control);
    std::optional<std::int64_t> fresh;
    if (cc.no_reuse) {
        fresh = 0;
    } else if (cc.max_age) {
        fresh = *cc.max_age;
    } else if (auto expires = http_date_seconds(headers.expires)) {
        auto date = http_date_seconds(headers.date);
        fresh =
            *expires -
            (date ? *date : std::chrono::duration_cast<seconds>(now.time_since_epoch()).count());
    }
    if (!fresh)
        return refresh::default_lifetime;
    if (auto age = delta_seconds(headers.age))
        *fresh -= *age;
    // Every term is bounded (2^31 s, year 9999): no overflow before the bounds apply.
    return std::clamp(seconds(*fresh), seconds(refresh::min_interval),
                      seconds(refresh::max_lifetime));
}

} // namespace gate::protocol::jose
