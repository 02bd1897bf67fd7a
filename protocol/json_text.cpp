#include "protocol/json_text.hpp"

#include <boost/json/serialize.hpp>
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

} // namespace

std::string json_text(const boost::json::value& v) {
    std::string out;
    write(v, out);
    return out;
}

} // namespace gate::protocol
