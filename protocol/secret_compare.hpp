// Comparing a presented credential with the expected one in time that does not depend on
// where they differ, or on the presented one's length.
#pragma once

#include <string_view>

namespace gate::protocol {

bool secrets_equal(std::string_view presented, std::string_view expected);

} // namespace gate::protocol
