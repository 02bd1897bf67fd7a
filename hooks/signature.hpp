// The signature of a delivery (spec: a lowercase hex HMAC-SHA256 of the body with the
// webhook's secret).
#pragma once

#include <string>
#include <string_view>

namespace gate::hooks {

std::string hmac_sha256_hex(std::string_view secret, std::string_view body);

} // namespace gate::hooks
