// JSON text for bodies people read (/health): like Boost.JSON's serializer, but a decimal
// number is written the shortest way that reads back as the same double (8.4, not
// 8.4000000000000004E0, which Boost.JSON 1.81 writes for every double). And pieces of JSON
// text appended to a document being written, exactly as Boost.JSON's serializer writes them,
// for text written on the request path without building a value first.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

namespace gate::protocol {

std::string json_text(const boost::json::value& v);

// `s` as a JSON string, quotes included: copied as it is when it holds no quote, backslash or
// control character (the common case: names, ids), escaped by the serializer otherwise.
void append_json_string(std::string& out, std::string_view s);
// `v` as json::serialize writes it, without an intermediate string.
void append_json(std::string& out, const boost::json::value& v);
void append_json(std::string& out, const boost::json::object& o);

} // namespace gate::protocol
