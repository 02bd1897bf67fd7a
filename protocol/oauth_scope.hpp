// OAuth scope tokens (RFC 6749 3.3): what policy subjects may name and what gate writes into
// a step-up challenge's `scope` parameter, so a quote or a space can never end it early.
#pragma once

#include <string_view>

namespace gate::protocol {

// scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
inline bool is_scope_token(std::string_view s) {
    if (s.empty())
        return false;
    for (unsigned char c : s)
        if (c < 0x21 || c > 0x7e || c == '"' || c == '\\')
            return false;
    return true;
}

} // namespace gate::protocol
