#include "hooks/webhook_request.hpp"

#include "hooks/event_types.hpp"

#include <boost/url/parse.hpp>

namespace gate::hooks {

namespace json = boost::json;

namespace {

std::string describe_byte(unsigned char c) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string code = std::string("0x") + hex[c >> 4] + hex[c & 15];
    if (c == 0)
        return "byte " + code + " (NUL)";
    if (c < 0x20 || c == 0x7f)
        return "control character " + code;
    if (c >= 0x80)
        return "byte " + code + " (not ASCII)";
    return std::string("'") + static_cast<char>(c) + "'";
}

bool host_name_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
}

// Boost.URL 1.81 ends an IP host, or a port, where the address or the digits end and reads
// the rest as a path: "127.0.0.1%00.evil.example" is host 127.0.0.1 and path
// "%00.evil.example", "127.0.0.1.evil.example" host 127.0.0.1. After an authority a path
// begins with '/' (RFC 3986, path-abempty), so any other path is what was cut off the host or
// the port as written.
// "127.0.0.1." (with a port or not): glibc's resolver reads an address with the root's dot
// as a name to look up in DNS, not as the address, so neither it nor the address without the
// dot is what the writer can be assumed to mean: refused, saying which to write.
std::optional<std::string> check_ipv4_root_dot(std::string_view address, std::string_view cut) {
    if (!cut.starts_with('.'))
        return std::nullopt;
    auto port = cut.substr(1);
    if (!port.empty() && (!port.starts_with(':') || port.size() == 1 ||
                          port.substr(1).find_first_not_of("0123456789") != std::string_view::npos))
        return std::nullopt;
    return std::string(address) +
           ". is an IPv4 address with a trailing dot, which a resolver "
           "looks up as a name rather than reading it as the address: "
           "write the address without the dot (" +
           std::string(address) + ")";
}

std::optional<std::string> check_authority_end(const boost::urls::url_view& u) {
    auto path = u.encoded_path();
    if (path.empty() || path.starts_with('/'))
        return std::nullopt;
    if (u.host_type() == boost::urls::host_type::ipv4 && !u.has_port())
        if (auto bad = check_ipv4_root_dot(u.encoded_host(), path.substr(0, path.find('/'))))
            return bad;
    std::string written = std::string(u.encoded_host()) +
                          (u.has_port() ? ":" + std::string(u.port()) : "") +
                          std::string(path.substr(0, path.find('/')));
    if (u.host_type() == boost::urls::host_type::ipv4 && !u.has_port()) {
        auto decoded = boost::urls::make_pct_string_view(written);
        if (decoded)
            if (auto bad = check_host_name(decoded->decode()))
                return bad;
        return written + " begins like an IPv4 address, and such a name cannot be told from "
                         "the address (give the address itself, or a name that does not "
                         "begin with one)";
    }
    return written + " is not a host: an IP address or a port may be followed only by a "
                     "path ('/'), a query ('?') or nothing";
}

} // namespace

std::optional<std::string> check_host_name(std::string_view name) {
    constexpr std::string_view rule = "; a host name is letters, digits, '-', '_' and '.' "
                                      "(internationalized names in their xn-- form)";
    for (std::size_t i = 0; i < name.size(); ++i)
        if (!host_name_char(static_cast<unsigned char>(name[i])))
            return "host has " + describe_byte(static_cast<unsigned char>(name[i])) +
                   " at position " + std::to_string(i + 1) + " (percent-decoded)" +
                   std::string(rule);
    // One trailing dot names the root (an absolute name); any other empty label is a mistake.
    auto labels = name.ends_with('.') ? name.substr(0, name.size() - 1) : name;
    if (labels.size() > max_host_name_length)
        return "host is longer than " + std::to_string(max_host_name_length) + " characters";
    std::size_t start = 0;
    while (true) {
        auto end = labels.find('.', start);
        auto label = labels.substr(start, end == std::string_view::npos ? end : end - start);
        if (label.empty())
            return std::string("host has an empty label (\"..\", or a leading dot)");
        if (label.size() > max_host_label_length)
            return "host has a label longer than " + std::to_string(max_host_label_length) +
                   " characters";
        if (end == std::string_view::npos)
            return std::nullopt;
        start = end + 1;
    }
}

std::string target_host(const boost::urls::url_view& u) {
    switch (u.host_type()) {
    case boost::urls::host_type::name:
        return u.host_name(); // decoded: what the resolver gets
    case boost::urls::host_type::ipv4:
    case boost::urls::host_type::ipv6:
        return u.host_address(); // no brackets
    default:
        return u.host();
    }
}

std::optional<std::string> check_target_url(std::string_view text) {
    if (text.size() > max_url_length)
        return "must be at most " + std::to_string(max_url_length) + " characters";
    auto u = boost::urls::parse_absolute_uri(text);
    if (!u)
        return std::string("must be an absolute URL");
    if (u->scheme() != "https")
        return "must use https (got " + std::string(u->scheme()) + ")";
    if (u->host().empty())
        return std::string("must name a host");
    if (u->host_type() == boost::urls::host_type::ipvfuture)
        return std::string("must name a host by its name or IP address (not an IPvFuture "
                           "literal)");
    // Percent-decoded, the name is what the resolver, TLS and the Host header get: a NUL cut
    // it short for the resolver, CR LF would start a header.
    if (u->host_type() == boost::urls::host_type::name)
        if (auto bad = check_host_name(u->host_name()))
            return "must name a valid host: " + *bad;
    if (auto bad = check_authority_end(*u))
        return "must name a valid host: " + *bad;
    if (u->has_userinfo())
        return std::string("must not carry credentials (user:password@)");
    if (u->has_fragment())
        return std::string("must not have a fragment");
    return std::nullopt;
}

namespace {

// A secret, or null for none.
std::variant<std::optional<std::string>, field_error> parse_secret(const json::value& value) {
    if (value.is_null())
        return std::optional<std::string>();
    if (!value.is_string())
        return field_error{"secret", "must be a string or null"};
    std::string s(value.get_string());
    if (s.size() < min_secret_length || s.size() > max_secret_length)
        return field_error{"secret", "must be " + std::to_string(min_secret_length) + " to " +
                                         std::to_string(max_secret_length) + " characters"};
    return std::optional(std::move(s));
}

std::variant<std::string, field_error> parse_url(const json::value& value) {
    if (!value.is_string())
        return field_error{"url", "must be a string"};
    std::string url(value.get_string());
    if (auto bad = check_target_url(url))
        return field_error{"url", *bad};
    return url;
}

} // namespace

std::variant<webhook_spec, field_error> parse_webhook_spec(const json::value& body) {
    auto* obj = body.if_object();
    if (!obj)
        return field_error{"", "the body must be a JSON object"};
    webhook_spec spec;
    for (const auto& [key, value] : *obj) {
        if (key == "event") {
            if (!value.is_string())
                return field_error{"event", "must be a string"};
            spec.event = std::string(value.get_string());
            if (!is_platform_event(spec.event)) {
                std::string known;
                for (auto e : platform_events)
                    known += (known.empty() ? "" : ", ") + std::string(e);
                return field_error{"event",
                                   "unknown event " + spec.event + " (known: " + known + ")"};
            }
        } else if (key == "url") {
            auto url = parse_url(value);
            if (auto* bad = std::get_if<field_error>(&url))
                return *bad;
            spec.url = std::get<std::string>(std::move(url));
        } else if (key == "secret") {
            auto secret = parse_secret(value);
            if (auto* bad = std::get_if<field_error>(&secret))
                return *bad;
            spec.secret = std::get<std::optional<std::string>>(std::move(secret));
        } else {
            return field_error{std::string(key), "is not a field of a webhook (event, url, "
                                                 "secret)"};
        }
    }
    if (spec.event.empty())
        return field_error{"event", "is required"};
    if (spec.url.empty())
        return field_error{"url", "is required"};
    return spec;
}

std::variant<webhook_patch, field_error> parse_webhook_patch(const json::value& body) {
    auto* obj = body.if_object();
    if (!obj)
        return field_error{"", "the body must be a JSON object"};
    webhook_patch patch;
    for (const auto& [key, value] : *obj) {
        if (key == "enabled") {
            if (!value.is_bool())
                return field_error{"enabled", "must be true or false"};
            patch.enabled = value.get_bool();
        } else if (key == "url") {
            auto url = parse_url(value);
            if (auto* bad = std::get_if<field_error>(&url))
                return *bad;
            patch.url = std::get<std::string>(std::move(url));
        } else if (key == "secret") {
            auto secret = parse_secret(value);
            if (auto* bad = std::get_if<field_error>(&secret))
                return *bad;
            patch.secret = std::get<std::optional<std::string>>(std::move(secret));
        } else {
            return field_error{std::string(key),
                               "is not a field that can be changed (enabled, url, secret)"};
        }
    }
    if (!patch.enabled && !patch.url && !patch.secret)
        return field_error{"", "nothing to change: give enabled, url or secret"};
    return patch;
}

} // namespace gate::hooks
