// RFC 3339 UTC timestamps with milliseconds, as audit events and JSON logs print them.
#pragma once

#include <chrono>
#include <string>

namespace gate::protocol {

std::string utc_timestamp(std::chrono::system_clock::time_point t);

} // namespace gate::protocol
