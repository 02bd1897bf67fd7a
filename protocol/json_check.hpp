// Whether a text is JSON, without building anything: an upstream's answer is passed on as
// text, so gate needs to know that it parses, not its tree. Boost.JSON's parser spends about
// 1 ns per byte on a string once it holds an escape (a tool's answer: file contents, a page,
// lines with \n every few dozen bytes); this check runs over string content 16 bytes at a
// time and accepts exactly what boost::json::parse accepts with default options (strict
// UTF-8 and UTF-16 surrogates, nesting at most 32 deep, no comments or trailing commas).
#pragma once

#include "protocol/json_splice.hpp"

#include <string_view>

namespace gate::protocol {

inline constexpr int json_max_depth = 32; // boost::json::parse_options' default

// True when `text` is one JSON value, with only JSON whitespace around it. With `top`, the
// members of a top-level object are indexed on the way (left unknown for anything else), so
// an answer's text is passed over once to check it and find its members.
bool is_json(std::string_view text, object_members* top = nullptr);

} // namespace gate::protocol
