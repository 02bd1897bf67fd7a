// Writing back a JSON value that gate parsed, and perhaps changed, as its source wrote it
// wherever it is unchanged. A gateway passes a client's arguments and an upstream's results
// on byte for byte; Boost.JSON 1.81 keeps no number's text (123456789012345678901234567890
// comes back as 1.2345678901234568E29, 0.5 as 5E-1, 1e400 as Infinity, which is not JSON),
// and has no option that would. So a message is written from its parsed value guided by the
// text it was parsed from: every part that reads exactly as the parsed part (same members in
// the same order, each once; equal strings; numbers of the same kind and bits) is copied from
// the text, and only what gate changed (a rewritten name, an added envelope, an id) is
// written anew. A text that says more than its parsed value (a key written twice, which the
// parser kept once) is never copied: what goes on is what gate decided on.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

namespace gate::protocol {

// A JSON object with the text it was read from (empty: none), to be written on as it was
// written wherever gate leaves it unchanged.
struct sourced_object {
    boost::json::object value;
    std::string source;
};

// Whether `text` (one valid JSON value, spaces around it allowed) reads as exactly `v`.
bool reads_as(const boost::json::value& v, std::string_view text);

// Appends `v` as JSON text to `out`, copying from `source` (the valid JSON text `v` was parsed
// from before gate changed it; empty: none) each part of `v` that reads the same as the part
// at the same place there (a member by its key, an element by its position).
void write_preserving(const boost::json::value& v, std::string_view source, std::string& out);
void write_preserving(const boost::json::object& v, std::string_view source, std::string& out);
std::string serialize_preserving(const boost::json::value& v, std::string_view source);
// serialize_preserving on one line: the spaces, tabs and line breaks between tokens that the
// source wrote are left out, every token kept as written (a JSON line, such as an audit
// event, carries the value).
std::string one_line_preserving(const boost::json::value& v, std::string_view source);

// `v` as JSON text without a source: Boost.JSON's serializer, except that a double that is
// infinite (read from a text such as 1e400) is written 1e999 or -1e999, and one that is not
// a number (what Boost.JSON 1.81 reads 0e400 as) 0e999, which read back as the same value,
// where Boost.JSON writes Infinity and NaN, which no JSON parser accepts.
void write_json(const boost::json::value& v, std::string& out);
void write_json(const boost::json::object& v, std::string& out);

} // namespace gate::protocol
