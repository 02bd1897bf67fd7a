#include "transport/header_writer.hpp"

namespace gate::transport {

namespace {

bool is_tchar(unsigned char c) noexcept {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

} // namespace

bool header_name_valid(std::string_view name) noexcept {
    if (name.empty())
        return false;
    for (unsigned char c : name)
        if (!is_tchar(c))
            return false;
    return true;
}

bool header_value_valid(std::string_view value) noexcept {
    for (unsigned char c : value)
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return false;
    return true;
}

bool header_writer::field(std::string_view name, std::string_view value) {
    if (!header_name_valid(name) || !header_value_valid(value)) {
        refuse(name);
        return false;
    }
    wire_.append(name).append(": ").append(value).append("\r\n");
    return true;
}

bool header_writer::line(std::string_view name_and_value) {
    auto colon = name_and_value.find(':');
    if (colon == std::string_view::npos) {
        refuse("(a line without a name)");
        return false;
    }
    auto value = name_and_value.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    return field(name_and_value.substr(0, colon), value);
}

void header_writer::refuse(std::string_view name) {
    if (!refused_.empty())
        return;
    // The name is ours to report only when it is one; a hostile one is described, not echoed.
    refused_ = header_name_valid(name) ? std::string(name) : std::string("(an invalid name)");
}

} // namespace gate::transport
