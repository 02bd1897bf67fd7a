#include "config/checks.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <vector>

namespace gate::config::detail {

namespace {

// ASCII only, independent of the process locale.
bool is_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_alnum(char c) {
    return is_alpha(c) || is_digit(c);
}

int hex_value(char c) {
    if (is_digit(c)) {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        auto pos = s.find(sep, start);
        parts.push_back(s.substr(start, pos == std::string_view::npos ? pos : pos - start));
        if (pos == std::string_view::npos) {
            return parts;
        }
        start = pos + 1;
    }
}

std::optional<int> parse_decimal(std::string_view s, int max) {
    if (s.empty() || s.size() > 5) {
        return std::nullopt;
    }
    int n = 0;
    for (char c : s) {
        if (!is_digit(c)) {
            return std::nullopt;
        }
        n = n * 10 + (c - '0');
    }
    if (n > max) {
        return std::nullopt;
    }
    return n;
}

std::optional<std::array<std::uint8_t, 4>> parse_ipv4(std::string_view s) {
    auto parts = split(s, '.');
    if (parts.size() != 4) {
        return std::nullopt;
    }
    std::array<std::uint8_t, 4> out{};
    for (std::size_t i = 0; i < 4; ++i) {
        // Leading zeros are refused: some resolvers read them as octal.
        if (parts[i].size() > 3 || (parts[i].size() > 1 && parts[i][0] == '0')) {
            return std::nullopt;
        }
        auto n = parse_decimal(parts[i], 255);
        if (!n) {
            return std::nullopt;
        }
        out[i] = static_cast<std::uint8_t>(*n);
    }
    return out;
}

std::optional<std::array<std::uint16_t, 8>> parse_ipv6(std::string_view s) {
    std::array<std::uint16_t, 8> out{};
    auto gap = s.find("::");
    if (gap != std::string_view::npos && s.find("::", gap + 1) != std::string_view::npos) {
        return std::nullopt;
    }
    auto parse_groups = [](std::string_view part, std::vector<std::uint16_t>& groups) -> bool {
        if (part.empty()) {
            return true;
        }
        auto items = split(part, ':');
        for (std::size_t i = 0; i < items.size(); ++i) {
            auto item = items[i];
            if (i + 1 == items.size() && item.find('.') != std::string_view::npos) {
                auto v4 = parse_ipv4(item);
                if (!v4) {
                    return false;
                }
                groups.push_back(static_cast<std::uint16_t>(((*v4)[0] << 8) | (*v4)[1]));
                groups.push_back(static_cast<std::uint16_t>(((*v4)[2] << 8) | (*v4)[3]));
                continue;
            }
            if (item.empty() || item.size() > 4) {
                return false;
            }
            unsigned value = 0;
            for (char c : item) {
                int digit = hex_value(c);
                if (digit < 0) {
                    return false;
                }
                value = value * 16 + static_cast<unsigned>(digit);
            }
            groups.push_back(static_cast<std::uint16_t>(value));
        }
        return true;
    };
    std::vector<std::uint16_t> head, tail;
    if (gap == std::string_view::npos) {
        if (!parse_groups(s, head) || head.size() != 8) {
            return std::nullopt;
        }
    } else {
        if (!parse_groups(s.substr(0, gap), head) || !parse_groups(s.substr(gap + 2), tail) ||
            head.size() + tail.size() > 7) {
            return std::nullopt;
        }
    }
    for (std::size_t i = 0; i < head.size(); ++i) {
        out[i] = head[i];
    }
    for (std::size_t i = 0; i < tail.size(); ++i) {
        out[8 - tail.size() + i] = tail[i];
    }
    return out;
}

bool is_reg_name(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    for (char c : s) {
        if (!is_alnum(c) && c != '-' && c != '.' && c != '_') {
            return false;
        }
    }
    return true;
}

} // namespace

bool is_ipv4(std::string_view s) {
    return parse_ipv4(s).has_value();
}
bool is_ipv6(std::string_view s) {
    return parse_ipv6(s).has_value();
}

bool is_dns_name(std::string_view s) {
    if (s.empty() || s.size() > 253) {
        return false;
    }
    for (auto label : split(s, '.')) {
        if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
            return false;
        }
        for (char c : label) {
            // Underscores are tolerated: container runtimes hand out names like `my_service`.
            if (!is_alnum(c) && c != '-' && c != '_') {
                return false;
            }
        }
    }
    return true;
}

bool is_loopback_host(std::string_view host) {
    auto h = lower(host);
    if (h == "localhost") {
        return true;
    }
    if (auto v4 = parse_ipv4(h)) {
        return (*v4)[0] == 127;
    }
    if (auto v6 = parse_ipv6(h)) {
        const auto& g = *v6;
        bool zero_prefix = g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0;
        if (zero_prefix && g[5] == 0 && g[6] == 0 && g[7] == 1) {
            return true;
        }
        // An IPv4-mapped address (::ffff:127.x.y.z) reaches the same loopback interface.
        return zero_prefix && g[5] == 0xffff && (g[6] >> 8) == 127;
    }
    return false;
}

namespace {

// The authority's host (a bracketed IPv6 address or a name) and port, after any userinfo:
// false, with `why` set, when one is malformed.
bool read_host_and_port(std::string_view authority, url_parts& out, std::string& why) {
    std::string_view port_text;
    bool has_port = false;
    if (!authority.empty() && authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos) {
            why = "has an unterminated IPv6 address (missing ']')";
            return false;
        }
        out.host = lower(authority.substr(1, close - 1));
        if (!is_ipv6(out.host)) {
            why = "has an invalid IPv6 address";
            return false;
        }
        auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') {
                why = "has unexpected characters after the IPv6 address";
                return false;
            }
            has_port = true;
            port_text = after.substr(1);
        }
    } else {
        auto port_colon = authority.find(':');
        out.host = lower(authority.substr(0, port_colon));
        if (port_colon != std::string_view::npos) {
            has_port = true;
            port_text = authority.substr(port_colon + 1);
        }
        if (out.host.empty()) {
            why = "has no host";
            return false;
        }
        if (!is_reg_name(out.host)) {
            why = "has an invalid host \"" + out.host + "\"";
            return false;
        }
    }
    if (has_port) {
        auto port = parse_decimal(port_text, 65535);
        if (!port || *port == 0) {
            why = "has an invalid port (expected 1-65535)";
            return false;
        }
        out.port = port;
    }
    return true;
}

// What follows the authority: the path, then the query and the fragment if present (a '?'
// inside the fragment belongs to it).
void read_path_query_fragment(std::string_view rest, url_parts& out) {
    auto query_at = rest.find('?');
    auto fragment_at = rest.find('#');
    if (fragment_at != std::string_view::npos) {
        out.has_fragment = true;
        out.fragment = std::string(rest.substr(fragment_at + 1));
        rest = rest.substr(0, fragment_at);
        if (query_at != std::string_view::npos && query_at > fragment_at) {
            query_at = std::string_view::npos;
        }
    }
    if (query_at != std::string_view::npos) {
        out.has_query = true;
        out.query = std::string(rest.substr(query_at + 1));
        rest = rest.substr(0, query_at);
    }
    out.path = std::string(rest);
}

} // namespace

std::optional<url_parts> parse_url(std::string_view text, std::string& why) {
    for (char c : text) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
            why = "contains whitespace or a control character";
            return std::nullopt;
        }
    }
    auto colon = text.find("://");
    if (colon == std::string_view::npos || colon == 0 || !is_alpha(text[0])) {
        why = "is not an absolute URL (expected scheme://host...)";
        return std::nullopt;
    }
    url_parts out;
    for (char c : text.substr(0, colon)) {
        if (!is_alnum(c) && c != '+' && c != '-' && c != '.') {
            why = "has an invalid scheme";
            return std::nullopt;
        }
    }
    out.scheme = lower(text.substr(0, colon));
    auto rest = text.substr(colon + 3);
    auto authority_end = rest.find_first_of("/?#");
    auto authority = rest.substr(0, authority_end);
    rest =
        authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);

    if (auto at = authority.rfind('@'); at != std::string_view::npos) {
        out.has_userinfo = true;
        authority = authority.substr(at + 1);
    }
    if (!read_host_and_port(authority, out, why))
        return std::nullopt;
    read_path_query_fragment(rest, out);
    return out;
}

std::string http_url_problem(std::string_view text, bool secure) {
    // The scheme is judged first: "file:///x" is better told it is not http than that it
    // has no host.
    if (auto colon = text.find(':'); colon != std::string_view::npos && colon > 0) {
        auto scheme = lower(text.substr(0, colon));
        bool token = is_alpha(scheme[0]);
        for (char c : scheme) {
            token = token && (is_alnum(c) || c == '+' || c == '-' || c == '.');
        }
        if (token && scheme != "http" && scheme != "https") {
            return "must be an http:// or https:// URL (got scheme \"" + scheme + "\")";
        }
    }
    std::string why;
    auto url = parse_url(text, why);
    if (!url) {
        return "is not a valid URL: it " + why;
    }
    if (url->scheme != "http" && url->scheme != "https") {
        return "must be an http:// or https:// URL (got scheme \"" + url->scheme + "\")";
    }
    if (url->has_userinfo) {
        return "must not embed credentials (user:password@); the document never holds secrets";
    }
    if (url->has_fragment) {
        return "must not contain a fragment (#...)";
    }
    if (secure && url->scheme == "http" && !is_loopback_host(url->host)) {
        return "must use https; plain http is accepted only for loopback hosts (localhost, "
               "127.0.0.0/8, ::1)";
    }
    return "";
}

bool is_env_name(std::string_view s) {
    if (s.empty() || is_digit(s.front())) {
        return false;
    }
    for (char c : s) {
        if (!is_alnum(c) && c != '_') {
            return false;
        }
    }
    return true;
}

bool is_slug(std::string_view s) {
    if (s.empty() || s.front() == '-') {
        return false;
    }
    for (char c : s) {
        if (!(c >= 'a' && c <= 'z') && !is_digit(c) && c != '-') {
            return false;
        }
    }
    return true;
}

bool is_reserved_request_header(std::string_view name) {
    static constexpr std::string_view reserved[] = {"host",
                                                    "content-length",
                                                    "transfer-encoding",
                                                    "connection",
                                                    "upgrade",
                                                    "te",
                                                    "trailer",
                                                    "keep-alive",
                                                    "expect",
                                                    "proxy-connection",
                                                    "content-type",
                                                    "accept",
                                                    "mcp-session-id",
                                                    "mcp-protocol-version",
                                                    "mcp-method",
                                                    "mcp-name",
                                                    "traceparent"};
    for (auto r : reserved)
        if (r.size() == name.size() &&
            std::equal(r.begin(), r.end(), name.begin(), [](char a, char b) {
                return a == std::tolower(static_cast<unsigned char>(b));
            }))
            return true;
    return false;
}

std::string_view reserved_request_headers_text() {
    return "Host, Content-Length, Transfer-Encoding, Connection, Upgrade, TE, Trailer, "
           "Keep-Alive, Expect, Proxy-Connection, Content-Type, Accept, Mcp-Session-Id, "
           "MCP-Protocol-Version, Mcp-Method, Mcp-Name and traceparent";
}

bool is_http_token(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    static constexpr std::string_view extra = "!#$%&'*+-.^_`|~";
    for (char c : s) {
        if (!is_alnum(c) && extra.find(c) == std::string_view::npos) {
            return false;
        }
    }
    return true;
}

} // namespace gate::config::detail
