// How long a fetched key set may be used before it is fetched again (RFC 9111 freshness, as a
// private cache): Cache-Control no-store or no-cache mean as short as allowed; else max-age (the
// smallest when repeated); else Expires minus Date (minus now when Date is absent or invalid);
// minus Age when present; else key_set_refresh::default_lifetime. Always bounded to
// [key_set_refresh::min_interval, key_set_refresh::max_lifetime]. A directive or date that does
// not parse is ignored (so a set whose headers are all garbage gets the default).
#pragma once

#include "protocol/jose/key_set_refresh.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gate::protocol::jose {

// The caching header fields of a key set's answer as received; empty when absent.
struct key_set_caching {
    std::string cache_control; // every Cache-Control field line, joined with ", "
    std::string expires;
    std::string date;
    std::string age;
};

std::chrono::seconds key_set_lifetime(const key_set_caching& headers,
                                      std::chrono::system_clock::time_point now);

// An HTTP-date (RFC 9110 section 5.6.7: IMF-fixdate, or the obsolete RFC 850 and asctime forms)
// as seconds since the Unix epoch, or nullopt when it is not one.
std::optional<std::int64_t> http_date_seconds(std::string_view text);

} // namespace gate::protocol::jose
