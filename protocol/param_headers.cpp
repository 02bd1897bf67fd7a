#include "protocol/param_headers.hpp"

#include "protocol/modern_request.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace gate::protocol {

namespace json = boost::json;

namespace {

// RFC 9110's tchar.
bool is_token(std::string_view s) {
    static constexpr std::string_view extra = "!#$%&'*+-.^_`|~";
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
        return std::isalnum(c) || extra.find(static_cast<char>(c)) != std::string_view::npos;
    });
}

std::string dotted(const std::vector<std::string>& path) {
    std::string out = "inputSchema";
    for (const auto& p : path)
        out += ".properties." + printable(p);
    return out;
}

// Keywords whose values are data, not schemas: an `x-mcp-header` key in them annotates nothing.
bool is_data_keyword(std::string_view key) {
    return key == "const" || key == "enum" || key == "default" || key == "examples";
}

struct schema_reader {
    param_headers found;
    std::optional<std::string> invalid;

    void annotation(const json::object& node, const json::value& value,
                    const std::vector<std::string>& path) {
        if (!value.is_string() || !is_token(value.get_string())) {
            invalid = "x-mcp-header of " + dotted(path) +
                      " must be a non-empty HTTP token (letters, digits, !#$%&'*+-.^_`|~)";
            return;
        }
        std::string_view name = value.get_string();
        for (const auto& f : found)
            if (same_header_name(f.name, name)) {
                invalid = "x-mcp-header " + printable(name) + " of " + dotted(path) +
                          " repeats the one of " + dotted(f.path);
                return;
            }
        auto* type = node.if_contains("type");
        std::string_view t = type && type->is_string() ? std::string_view(type->get_string()) : "";
        if (t != "string" && t != "integer" && t != "boolean") {
            invalid = "x-mcp-header of " + dotted(path) +
                      " is on a property whose type is not integer, string or boolean";
            return;
        }
        found.push_back({std::string(name), path});
    }

    // `reachable`: the node is the root or a property reached through `properties` alone.
    void walk(const json::value& v, std::vector<std::string>& path, bool reachable) {
        if (invalid)
            return;
        if (auto* arr = v.if_array()) {
            for (const auto& e : *arr)
                walk(e, path, false);
            return;
        }
        auto* node = v.if_object();
        if (!node)
            return;
        for (const auto& [key, value] : *node) {
            if (invalid)
                return;
            if (key == "x-mcp-header") {
                if (!reachable || path.empty()) {
                    invalid = "x-mcp-header is allowed only on a property reached from the "
                              "root through properties (found under " +
                              dotted(path) + ")";
                    return;
                }
                annotation(*node, value, path);
            } else if (key == "properties" && value.is_object()) {
                for (const auto& [name, sub] : value.get_object()) {
                    path.emplace_back(name);
                    walk(sub, path, reachable);
                    path.pop_back();
                }
            } else if (!is_data_keyword(key)) {
                walk(value, path, false); // items, oneOf, $defs, if/then/else, ...
            }
        }
    }
};

std::string quoted(std::string_view s) {
    return "'" + printable(s) + "'";
}

// Printable ASCII only: what a plain header value may hold.
bool is_plain(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
}

bool same_number(std::string_view header, const json::value& body) {
    const char* end = header.data() + header.size();
    if (body.is_int64() || body.is_uint64()) {
        // Integers exactly: 9007199254740993 is not 9007199254740992, as a double would say.
        std::int64_t i = 0;
        if (auto [p, ec] = std::from_chars(header.data(), end, i); ec == std::errc() && p == end)
            return body.is_int64() ? body.get_int64() == i
                                   : i >= 0 && body.get_uint64() == static_cast<std::uint64_t>(i);
        std::uint64_t u = 0;
        if (auto [p, ec] = std::from_chars(header.data(), end, u); ec == std::errc() && p == end)
            return body.is_uint64() && body.get_uint64() == u;
    }
    // Written with a fraction or an exponent (42.0): compared as numbers within the safe range.
    double h = 0;
    auto [p, ec] = std::from_chars(header.data(), end, h);
    constexpr double safe = 9007199254740991.0;
    if (ec != std::errc() || p != end || std::fabs(h) > safe)
        return false;
    return h == body.to_number<double>();
}

} // namespace

std::variant<param_headers, std::string> read_param_headers(const json::value* schema) {
    if (!schema)
        return param_headers{};
    schema_reader reader;
    std::vector<std::string> path;
    reader.walk(*schema, path, true);
    if (reader.invalid)
        return std::move(*reader.invalid);
    return std::move(reader.found);
}

std::optional<std::string> param_text(const json::value* v) {
    if (!v)
        return std::nullopt;
    if (v->is_string())
        return std::string(v->get_string());
    if (v->is_bool())
        return v->get_bool() ? "true" : "false";
    if (v->is_int64())
        return std::to_string(v->get_int64());
    if (v->is_uint64())
        return std::to_string(v->get_uint64());
    if (v->is_double()) {
        // An integer written with a fraction or exponent (42.0, 4.2e1).
        double d = v->get_double();
        constexpr double safe = 9007199254740991.0; // 2^53 - 1
        if (std::trunc(d) == d && std::fabs(d) <= safe)
            return std::to_string(static_cast<std::int64_t>(d));
    }
    return std::nullopt;
}

const json::value* argument_at(const json::object* arguments,
                               const std::vector<std::string>& path) {
    const json::object* at = arguments;
    const json::value* v = nullptr;
    for (const auto& step : path) {
        if (!at)
            return nullptr;
        v = at->if_contains(step);
        if (!v)
            return nullptr;
        at = v->if_object();
    }
    return v;
}

std::string printable(std::string_view text, std::size_t most) {
    std::string out;
    for (unsigned char c : text.substr(0, most))
        out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
    return text.size() > most ? out + "..." : out;
}

bool same_header_name(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

header_fields param_header_fields(const param_headers& wanted, const json::object* arguments) {
    header_fields out;
    for (const auto& w : wanted)
        if (auto text = param_text(argument_at(arguments, w.path)))
            out.emplace_back(std::string(param_header_prefix) + w.name, encode_header_value(*text));
    return out;
}

std::optional<std::string> check_param_headers(const param_headers& wanted,
                                               const json::object* arguments,
                                               const sent_param_headers& sent) {
    for (const auto& w : wanted) {
        const auto* value = argument_at(arguments, w.path);
        auto expected = param_text(value);
        auto header = std::find_if(sent.begin(), sent.end(), [&](const auto& h) {
            return same_header_name(h.first, w.name);
        });
        std::string what = std::string(param_header_prefix) + w.name + " header";
        std::string where = "arguments";
        for (const auto& p : w.path)
            where += "." + printable(p);
        if (header == sent.end()) {
            if (expected)
                return "Header mismatch: " + what + " is absent but " + where + " is in the body";
            continue;
        }
        if (!expected)
            return "Header mismatch: " + what + " is sent but " + where +
                   " is absent, null or not a string, integer or boolean";
        auto decoded = decode_header_value(header->second);
        if (!decoded || (decoded == header->second && !is_plain(header->second)))
            return "Header mismatch: " + what + " value " + quoted(header->second) +
                   " has invalid characters or encoding";
        bool equal = value->is_number() ? same_number(*decoded, *value) : *decoded == *expected;
        if (!equal)
            return "Header mismatch: " + what + " value " + quoted(*decoded) +
                   " does not match body value " + quoted(*expected);
    }
    return std::nullopt;
}

} // namespace gate::protocol
