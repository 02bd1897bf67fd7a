// server.info and server.instructions: how a namespaced federation presents itself to its
// clients, in initialize's serverInfo and instructions and in server/discover
// (docs/configuration.md). Every value reaches every client, so each is bounded and free of
// control characters, and an icon is one a client can show without fetching a third party:
// an image as a data: URI (never SVG, which can carry script) or an https URL.
#include "config/checks.hpp"
#include "config/parse_sections.hpp"
#include "protocol/icons.hpp"

#include <algorithm>

namespace gate::config::detail {

namespace {

constexpr std::size_t max_icons = 8;
// The bounds gate holds an upstream's icons to (protocol/icons.hpp), for its own too.
constexpr std::size_t max_icon_bytes = protocol::max_data_icon;
constexpr std::size_t max_icon_url = protocol::max_icon_src;
constexpr std::size_t max_instructions = 8192;

// Whether `s` holds a control character (a line break and a tab allowed where `lines`).
bool has_control(std::string_view s, bool lines) {
    return std::any_of(s.begin(), s.end(), [lines](char c) {
        auto u = static_cast<unsigned char>(c);
        if (lines && (c == '\n' || c == '\t'))
            return false;
        return u < 0x20 || u == 0x7f;
    });
}

// A short text member: 1..`most` bytes, no control characters.
std::optional<std::string> read_label(const object_view& o, std::string_view key,
                                      std::size_t most) {
    auto text = o.string(key);
    if (!text)
        return std::nullopt;
    if (text->size() > most) {
        o.fail(key,
               "is " + std::to_string(text->size()) + " bytes; at most " + std::to_string(most));
        return std::nullopt;
    }
    if (has_control(*text, false)) {
        o.fail(key, "must not hold control characters (every client shows it)");
        return std::nullopt;
    }
    return text;
}

bool image_data_uri(std::string_view src) {
    for (std::string_view type :
         {"data:image/png", "data:image/jpeg", "data:image/webp", "data:image/gif"})
        if (src.starts_with(type) && src.size() > type.size() &&
            (src[type.size()] == ';' || src[type.size()] == ','))
            return true;
    return false;
}

// Why `src` cannot be a federation's icon; "" when it can.
std::string icon_src_problem(std::string_view src) {
    if (src.starts_with("data:")) {
        if (!image_data_uri(src))
            return "is a data: URI of no image type gate serves: PNG, JPEG, WebP or GIF (not "
                   "SVG, which can carry script)";
        if (src.size() > max_icon_bytes)
            return "is " + std::to_string(src.size()) + " bytes; a data: icon is at most " +
                   std::to_string(max_icon_bytes);
        return "";
    }
    std::string why;
    auto url = parse_url(src, why);
    if (!url)
        return "is neither an image as a data: URI nor a valid URL: it " + why;
    if (url->scheme != "https" || url->has_userinfo || src.size() > max_icon_url)
        return "must be an image as a data: URI or an https URL of at most " +
               std::to_string(max_icon_url) + " bytes without user information";
    return "";
}

bool is_size(std::string_view s) {
    if (s == "any")
        return true;
    auto x = s.find('x');
    auto digits = [](std::string_view d) {
        return !d.empty() && d.size() <= 5 &&
               std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    return x != std::string_view::npos && digits(s.substr(0, x)) && digits(s.substr(x + 1));
}

std::optional<icon> read_icon(const object_view& o) {
    icon out;
    o.require("src", "an image as a data: URI or an https URL");
    auto src = o.string("src");
    if (src) {
        if (auto problem = icon_src_problem(*src); !problem.empty())
            o.fail("src", problem);
        else
            out.src = *src;
    }
    if (auto type = read_label(o, "mimeType", 100)) {
        if (!type->starts_with("image/") || type->find("svg") != std::string::npos)
            o.fail("mimeType", quoted(*type) + " is not an image type gate presents (image/..., "
                                               "not SVG)");
        else
            out.mime_type = *type;
    }
    if (auto sizes = o.strings("sizes")) {
        for (std::size_t i = 0; i < sizes->size(); ++i)
            if (!is_size((*sizes)[i]))
                o.errors().add(child_pointer(o.pointer_of("sizes"), i),
                               quoted((*sizes)[i]) + " is not a size such as \"48x48\" or \"any\"");
        out.sizes = std::move(*sizes);
    }
    out.theme = o.one_of("theme", {"light", "dark"});
    if (out.src.empty())
        return std::nullopt;
    return out;
}

void read_info(const object_view& parent, federation_info& out) {
    const auto* v = parent.find("info");
    if (v == nullptr)
        return;
    object_view o(*v, parent.pointer_of("info"), parent.errors(),
                  {"name", "title", "version", "websiteUrl", "icons"});
    if (!o.ok())
        return;
    out.name = read_label(o, "name", 128);
    out.title = read_label(o, "title", 256);
    out.version = read_label(o, "version", 64);
    out.website_url = read_http_url(o, "websiteUrl", true);
    const auto* icons = o.array("icons");
    if (icons == nullptr)
        return;
    if (icons->size() > max_icons) {
        o.fail("icons", "has " + std::to_string(icons->size()) + " icons; at most " +
                            std::to_string(max_icons));
        return;
    }
    for (std::size_t i = 0; i < icons->size(); ++i) {
        object_view entry((*icons)[i], child_pointer(o.pointer_of("icons"), i), o.errors(),
                          {"src", "mimeType", "sizes", "theme"});
        if (!entry.ok())
            continue;
        if (auto got = read_icon(entry))
            out.icons.push_back(std::move(*got));
    }
}

void read_instructions(const object_view& parent, federation_instructions& out) {
    const auto* v = parent.find("instructions");
    if (v == nullptr)
        return;
    object_view o(*v, parent.pointer_of("instructions"), parent.errors(),
                  {"text", "fromUpstreams"});
    if (!o.ok())
        return;
    out.from_upstreams = o.boolean("fromUpstreams").value_or(false);
    auto text = o.string("text");
    if (!text) {
        if (!o.has("fromUpstreams") && !o.failed("text"))
            o.fail_here("names nothing to say: give text, fromUpstreams or both");
        return;
    }
    if (text->size() > max_instructions)
        o.fail("text", "is " + std::to_string(text->size()) + " bytes; at most " +
                           std::to_string(max_instructions));
    else if (has_control(*text, true))
        o.fail("text", "must not hold control characters other than line breaks and tabs");
    else
        out.text = *text;
}

} // namespace

void parse_federation_identity(const object_view& server_section, server& out) {
    read_info(server_section, out.info);
    read_instructions(server_section, out.instructions);
}

void check_federation_identity(const document& doc, sink& errors) {
    if (!doc.passthrough() || errors.failed("/server"))
        return;
    const char* why = " is a namespaced federation's: with one upstream and no namespace, gate "
                      "passes that upstream's own initialize through (give it a namespace to "
                      "present the federation as configured)";
    if (doc.server.info != federation_info{})
        errors.add("/server/info", std::string("presents gate") + why);
    if (doc.server.instructions != federation_instructions{})
        errors.add("/server/instructions", std::string("instructs the client") + why);
}

} // namespace gate::config::detail
