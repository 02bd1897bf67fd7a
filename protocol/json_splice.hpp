// Finding a top-level member of a JSON object in its text, so an upstream's answer can be
// passed on byte for byte with only its id replaced.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gate::protocol {

struct text_span {
    std::size_t begin, end; // [begin, end) of the member's value
};

// The value span of member `key` of the top-level object in `json` (which must be valid
// JSON). nullopt when the document is not an object, has no such member, or has it twice.
std::optional<text_span> find_top_level_member(std::string_view json, std::string_view key);

// `json` with the value of top-level member `key` replaced by `value_text`; nullopt when
// the member is absent.
std::optional<std::string> replace_top_level_member(std::string_view json, std::string_view key,
                                                    std::string_view value_text);

} // namespace gate::protocol
