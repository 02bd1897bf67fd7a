#include "protocol/tool_name.hpp"

#include <algorithm>

namespace gate::protocol {

bool in_tool_name_charset(std::string_view name) {
    auto allowed = [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.';
    };
    return std::all_of(name.begin(), name.end(), allowed);
}

tool_name_fault check_tool_name(std::string_view name) {
    if (name.empty())
        return tool_name_fault::empty;
    if (name.size() > max_tool_name)
        return tool_name_fault::too_long;
    return in_tool_name_charset(name) ? tool_name_fault::none : tool_name_fault::charset;
}

std::string_view fault_label(tool_name_fault f) {
    switch (f) {
    case tool_name_fault::empty:
        return "empty";
    case tool_name_fault::too_long:
        return "too_long";
    case tool_name_fault::charset:
        return "charset";
    default:
        return "none";
    }
}

} // namespace gate::protocol
