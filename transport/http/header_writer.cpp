#include "transport/http/header_writer.hpp"

namespace gate::transport {

bool header_writer::field_named(std::string_view name, std::string_view value) {
    if (!header_name_valid(name) || !header_value_valid(value)) {
        refuse(name);
        return false;
    }
    append(name, value);
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
    return field_named(name_and_value.substr(0, colon), value);
}

void header_writer::refuse(std::string_view name) {
    if (!refused_.empty())
        return;
    // The name is ours to report only when it is one; a hostile one is described, not echoed.
    refused_ = header_name_valid(name) ? std::string(name) : std::string("(an invalid name)");
}

} // namespace gate::transport
