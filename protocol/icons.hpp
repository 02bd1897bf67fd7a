// Icons of a federation's upstreams (tools, prompts, resources, templates, serverInfo) served
// from gate's own origin. A client of MCP 2026-07-28 rejects an icon whose URI is not of its
// server's origin, and often cannot reach the upstream anyway, so an `http(s)` icon on the
// upstream's own origin (one of its configured URLs') is written as a URL of gate,
// `{base}{namespace}/{digest}`, and gate fetches it on demand without credentials
// (gateway/mcp/icon_proxy). An icon on any other origin is dropped: gate would
// otherwise fetch whatever address an upstream names. `data:` icons are kept as they are (up
// to max_data_icon bytes), every other scheme dropped (docs/security.md, Icons).
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gate::protocol {

inline constexpr std::size_t max_icon_src = 2048;       // longer http(s) srcs are dropped
inline constexpr std::size_t max_data_icon = 64 * 1024; // longer data: URIs are dropped
inline constexpr std::size_t icon_digest_size = 32;     // hex digits (128 bits of SHA-256)
inline constexpr std::string_view icon_path_prefix = "/icons/";

// The origin of an absolute http(s) URL, as "scheme://host[:port]" with scheme and host in
// lower case and the scheme's default port left out; nullopt for anything gate would not
// fetch: another scheme, no host, user information, a malformed or over-long URL (a URL with
// a space, CR or LF is malformed).
std::optional<std::string> http_origin(std::string_view url);

// The name of an icon under its namespace: the first 128 bits of SHA-256 of its src, in hex.
std::string icon_digest(std::string_view src);

// The path segment a namespace is written as: every byte outside A-Z a-z 0-9 - _ ~
// percent-encoded ('.' too, so no namespace reads as a dot segment).
std::string icon_path_segment(std::string_view ns);

// The namespace and digest of `path` (/icons/{segment}/{digest}, the segment as
// icon_path_segment writes it, or with lower-case hex); nullopt for any other path (a dot
// segment, a bad escape, a decoded '/', a digest that is not 32 lower-case hex digits).
std::optional<std::pair<std::string, std::string>> parse_icon_path(std::string_view path);

// Image types gate serves, recognized by their first bytes (never by a declared type). SVG is
// not among them: it is a document that can carry script.
enum class image_type { png, jpeg, gif, webp };
std::optional<image_type> sniff_image(std::string_view bytes);
std::string_view image_mime(image_type t);

// Why an icon was left out (the metric's label).
enum class icon_drop { other_origin, scheme, malformed, data_too_big };
std::string_view drop_label(icon_drop why);

// Where one upstream's icons go: the origins of its configured URLs, and the prefix its icons
// are written under (gate's origin, if known, "/icons/", the namespace's segment, "/").
struct icon_site {
    std::vector<std::string> origins;
    std::string base;
};

struct icon_hooks {
    // An icon rewritten to base + digest, and the src it stands for.
    std::function<void(std::string_view digest, std::string_view src)> keep;
    // An icon left out, and why (`src` cut short for a log line).
    std::function<void(icon_drop why, std::string_view src)> dropped;
};

// Rewrites `holder["icons"]` (an item of a list, a serverInfo) for `site`: http(s) icons of
// the upstream's origin written under site.base (mimeType, sizes and theme kept), data: ones
// kept, the others left out (an icon that is not an object with a string src too); the member
// is removed when nothing is left of it. Whether anything changed.
bool rewrite_icons(boost::json::object& holder, const icon_site& site, const icon_hooks& hooks);

} // namespace gate::protocol
