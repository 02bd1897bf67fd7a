// Finding a top-level member of a JSON object in its text, so an upstream's answer can be
// passed on byte for byte with only its id replaced.
#pragma once

#include "protocol/json_walk.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::protocol {

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

// Where the value after the first `"key":` in `json` begins, found by its spelling alone,
// without a walk (a request's params are found so on every call). A guess: a nested member
// of that name may come first, and a key spelled with escapes is not found. It serves as
// the guide json_preserve writes a value from, which copies only what reads as that value
// (and reads one value, ignoring what follows), so a wrong guess costs only the spelling of
// numbers, never what the text says. nullopt when there is no such spelling.
std::optional<std::size_t> find_spelled_member(std::string_view json, std::string_view key);

// Whether a key's content as written (between its quotes, escapes and all) reads as `key`.
bool key_reads_as(std::string_view written, std::string_view key);

// Whether `json` may name `key` (a key, or a string value): it holds `"key"` as written, or
// some `\u` escape, the only way JSON writes a letter otherwise. A search that stops at no
// quote, before a walk that reads the text as a parser would; false means it names none.
bool may_name(std::string_view json, std::string_view key);

// The span of the value at `path` in `json` (each step a member of an object, keys compared
// as they read); nullopt when a step is absent, not an object, or written twice.
std::optional<text_span> find_member(std::string_view json,
                                     std::initializer_list<std::string_view> path);

// The texts of the elements of the array at `path` in `json` (empty: `json` is the array),
// in order; nullopt when there is no one array there (a step absent, written twice, or not
// an array). Views into `json`.
std::optional<std::vector<std::string_view>>
element_texts(std::string_view json, std::initializer_list<std::string_view> path);

// `json` with member `key` of the object at `path` (empty: the top level) set to
// `value_text`: its value replaced where it has one, else the member added after the last
// one. Every other byte is kept. nullopt when the object is not there or has `key` twice
// (keys compared as they read, so no spelling of `key` is left beside the new member).
std::optional<std::string> set_member(std::string_view json,
                                      std::initializer_list<std::string_view> path,
                                      std::string_view key, std::string_view value_text);

} // namespace gate::protocol
