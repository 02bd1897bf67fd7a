#include "protocol/json_text.hpp"

#include "protocol/json_scan.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <boost/json/serializer.hpp>
#include <charconv>
#include <cmath>

namespace gate::protocol {

namespace {

void write(const boost::json::value& v, std::string& out) {
    switch (v.kind()) {
    case boost::json::kind::object: {
        out += '{';
        bool first = true;
        for (const auto& [k, member] : v.get_object()) {
            if (!first)
                out += ',';
            first = false;
            out += boost::json::serialize(boost::json::string_view(k));
            out += ':';
            write(member, out);
        }
        out += '}';
        return;
    }
    case boost::json::kind::array: {
        out += '[';
        bool first = true;
        for (const auto& e : v.get_array()) {
            if (!first)
                out += ',';
            first = false;
            write(e, out);
        }
        out += ']';
        return;
    }
    case boost::json::kind::double_: {
        double d = v.get_double();
        if (!std::isfinite(d)) { // JSON has no such number
            out += "null";
            return;
        }
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
        out.append(buf, ec == std::errc() ? end : buf);
        return;
    }
    default:
        out += boost::json::serialize(v);
        return;
    }
}

template <class Value> void append_serialized(std::string& out, const Value& v) {
    boost::json::serializer sr;
    sr.reset(&v);
    while (!sr.done()) {
        auto at = out.size();
        out.resize(std::max(out.capacity(), at + 64));
        out.resize(at + sr.read(out.data() + at, out.size() - at).size());
    }
}

} // namespace

void append_json_string(std::string& out, std::string_view s) {
    // 16 bytes at a time over what is plain ASCII, then byte by byte (a byte above 0x7F stops
    // the blocks but is written as it is, as the serializer writes it).
    const char* end = s.data() + s.size();
    bool plain = std::none_of(detail::skip_plain_blocks(s.data(), end, true), end, [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\';
    });
    if (plain)
        out.append(1, '"').append(s).append(1, '"');
    else
        out.append(boost::json::serialize(boost::json::string_view(s.data(), s.size())));
}

void append_json(std::string& out, const boost::json::value& v) {
    append_serialized(out, v);
}

void append_json(std::string& out, const boost::json::object& o) {
    append_serialized(out, o);
}

std::string json_text(const boost::json::value& v) {
    std::string out;
    write(v, out);
    return out;
}

} // namespace gate::protocol
