// A receiver's Retry-After header (RFC 9110, section 10.2.3): either delay-seconds or an
// HTTP-date. Plain C++: the date form is measured against `now`, which the caller passes.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace gate::hooks {

// How long the receiver asks to be left alone, or nullopt when the value is neither form.
// A date in the past asks for no wait (zero). All three HTTP-date formats are accepted, as
// RFC 9110 requires of recipients: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the
// obsolete RFC 850 form ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6
// 08:49:37 1994").
std::optional<std::chrono::milliseconds>
parse_retry_after(std::string_view value, std::chrono::system_clock::time_point now);

// An HTTP-date as a point in time, or nullopt when it is not one; `now` places the two-digit
// year of the RFC 850 form.
std::optional<std::chrono::system_clock::time_point>
parse_http_date(std::string_view value, std::chrono::system_clock::time_point now);

} // namespace gate::hooks
