#include "protocol/icons.hpp"

#include "protocol/digest.hpp"

#include <boost/json/array.hpp>
#include <boost/url/parse.hpp>

namespace gate::protocol {

namespace json = boost::json;

namespace {

char lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size())
        return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (lower(s[i]) != prefix[i])
            return false;
    return true;
}

bool unreserved(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '~';
}

int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// What one icon becomes: left out (`drop`), rewritten (`src`), or kept as it is (neither).
struct icon_verdict {
    std::optional<icon_drop> drop;
    std::string src; // rewritten (empty: unchanged)
};

icon_verdict judge(const json::value& icon, const icon_site& site, const icon_hooks& hooks) {
    const auto* o = icon.if_object();
    const auto* s = o ? o->if_contains("src") : nullptr;
    if (!s || !s->is_string())
        return {icon_drop::malformed, {}};
    std::string_view src = s->get_string();
    if (starts_with_nocase(src, "data:"))
        return src.size() > max_data_icon ? icon_verdict{icon_drop::data_too_big, {}}
                                          : icon_verdict{};
    if (!starts_with_nocase(src, "http:") && !starts_with_nocase(src, "https:"))
        return {icon_drop::scheme, {}};
    auto origin = http_origin(src);
    if (!origin)
        return {icon_drop::malformed, {}};
    bool ours = false;
    for (const auto& o2 : site.origins)
        ours = ours || o2 == *origin;
    if (!ours)
        return {icon_drop::other_origin, {}};
    auto digest = icon_digest(src);
    if (hooks.keep)
        hooks.keep(digest, src);
    return {std::nullopt, site.base + digest};
}

} // namespace

std::optional<std::string> http_origin(std::string_view url) {
    if (url.size() > max_icon_src)
        return std::nullopt;
    auto u = boost::urls::parse_uri(url);
    if (!u || !u->has_authority() || u->has_userinfo())
        return std::nullopt;
    bool https = u->scheme_id() == boost::urls::scheme::https;
    if (!https && u->scheme_id() != boost::urls::scheme::http)
        return std::nullopt;
    std::string host;
    for (char c : u->encoded_host())
        host += lower(c);
    if (host.empty())
        return std::nullopt;
    std::string out = https ? "https://" : "http://";
    out += host;
    if (u->has_port()) {
        if (u->port().empty())
            return std::nullopt;
        auto port = u->port_number();
        if (port == 0 || std::to_string(port) != std::string(u->port()))
            return std::nullopt; // out of range, or written with leading zeros
        if (port != (https ? 443 : 80))
            out += ":" + std::string(u->port());
    }
    return out;
}

std::string icon_digest(std::string_view src) {
    return sha256_hex(src, icon_digest_size);
}

std::string icon_path_segment(std::string_view ns) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (char c : ns) {
        if (unreserved(c)) {
            out += c;
            continue;
        }
        auto b = static_cast<unsigned char>(c);
        out += '%';
        out += digits[b >> 4];
        out += digits[b & 0xf];
    }
    return out;
}

std::optional<std::pair<std::string, std::string>> parse_icon_path(std::string_view path) {
    if (!path.starts_with(icon_path_prefix))
        return std::nullopt;
    path.remove_prefix(icon_path_prefix.size());
    auto slash = path.find('/');
    if (slash == std::string_view::npos || slash == 0)
        return std::nullopt;
    std::string_view segment = path.substr(0, slash), digest = path.substr(slash + 1);
    if (digest.size() != icon_digest_size)
        return std::nullopt;
    for (char c : digest)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return std::nullopt;
    std::string ns;
    for (std::size_t i = 0; i < segment.size(); ++i) {
        char c = segment[i];
        if (unreserved(c)) {
            ns += c;
            continue;
        }
        if (c != '%' || i + 2 >= segment.size())
            return std::nullopt;
        int hi = hex_value(segment[i + 1]), lo = hex_value(segment[i + 2]);
        if (hi < 0 || lo < 0)
            return std::nullopt;
        char decoded = static_cast<char>(hi * 16 + lo);
        if (decoded == '/' || decoded == '\0')
            return std::nullopt;
        ns += decoded;
        i += 2;
    }
    if (ns == "." || ns == "..")
        return std::nullopt;
    return std::pair{std::move(ns), std::string(digest)};
}

std::optional<image_type> sniff_image(std::string_view b) {
    if (b.starts_with(std::string_view("\x89PNG\r\n\x1a\n", 8)))
        return image_type::png;
    if (b.starts_with("\xFF\xD8\xFF"))
        return image_type::jpeg;
    if (b.starts_with("GIF87a") || b.starts_with("GIF89a"))
        return image_type::gif;
    if (b.size() >= 12 && b.starts_with("RIFF") && b.substr(8, 4) == "WEBP")
        return image_type::webp;
    return std::nullopt;
}

std::string_view image_mime(image_type t) {
    switch (t) {
    case image_type::png:
        return "image/png";
    case image_type::jpeg:
        return "image/jpeg";
    case image_type::gif:
        return "image/gif";
    case image_type::webp:
        return "image/webp";
    }
    return "application/octet-stream";
}

std::string_view drop_label(icon_drop why) {
    switch (why) {
    case icon_drop::other_origin:
        return "other_origin";
    case icon_drop::scheme:
        return "scheme";
    case icon_drop::malformed:
        return "malformed";
    case icon_drop::data_too_big:
        return "data_too_big";
    }
    return "malformed";
}

bool rewrite_icons(json::object& holder, const icon_site& site, const icon_hooks& hooks) {
    auto* icons = holder.if_contains("icons");
    if (!icons || !icons->is_array())
        return false; // absent, or not an array: the client's to judge, as the upstream wrote it
    auto& list = icons->get_array();
    bool changed = false;
    json::array kept;
    for (auto& icon : list) {
        auto verdict = judge(icon, site, hooks);
        if (verdict.drop) {
            if (hooks.dropped) {
                const auto* s = icon.is_object() ? icon.get_object().if_contains("src") : nullptr;
                std::string_view src =
                    s && s->is_string() ? std::string_view(s->get_string()) : std::string_view();
                hooks.dropped(*verdict.drop, src.substr(0, 200));
            }
            changed = true;
            continue;
        }
        // Copied: the list stays as it was when nothing changes.
        auto& copy = kept.emplace_back(icon);
        if (!verdict.src.empty()) {
            copy.get_object()["src"] = verdict.src;
            changed = true;
        }
    }
    if (!changed)
        return false;
    if (kept.empty())
        holder.erase("icons");
    else
        *icons = std::move(kept);
    return true;
}

} // namespace gate::protocol
