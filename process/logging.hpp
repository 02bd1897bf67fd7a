// Operational logs on stderr, as text or one JSON object per line. Stdout is reserved for
// the audit sink.
#pragma once

#include <string>

namespace gate::process {

void setup_logging(const std::string& format, const std::string& level);

} // namespace gate::process
