// Finding a top-level member of a JSON object in its text, so an upstream's answer can be
// passed on byte for byte with only its id replaced.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
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

// The members of one JSON object, found in its text in one pass, so the few an answer is
// read for are taken without parsing the rest (a tool's large result). Spans are offsets
// into the text given, so the index stays right when that string is moved.
class object_members {
public:
    // Nothing indexed yet: every lookup is unknown until members are added and complete().
    object_members() = default;
    // `json` must be valid JSON (protocol::is_json).
    explicit object_members(std::string_view json);

    // Built as a checker reads the object (protocol::is_json): each member in order, then
    // whether the index is whole (every key written without escapes).
    void add(text_span key, text_span value);
    void complete(bool whole) { complete_ = whole && !too_long_; }

    enum class lookup {
        found,
        absent,
        // The text is not an object, a key there is written with escapes (keys are compared
        // as written), or the member is written twice: read the parsed object instead.
        unknown,
    };
    // `json`: the same text the index was built from (it may have moved since).
    lookup find(std::string_view json, std::string_view key, text_span& value) const;

private:
    // Offsets of 32 bits keep the index small; a longer text, or an object of more members
    // than it holds, is not indexed (every lookup is unknown).
    struct member {
        std::uint32_t key_begin, key_end, value_begin, value_end;
    };
    std::array<member, 8> members_;
    std::size_t count_ = 0;
    bool complete_ = false;
    bool too_long_ = false;
};

// `json` with the value of top-level member `key` replaced by `value_text`; nullopt when
// the member is absent.
std::optional<std::string> replace_top_level_member(std::string_view json, std::string_view key,
                                                    std::string_view value_text);

} // namespace gate::protocol
