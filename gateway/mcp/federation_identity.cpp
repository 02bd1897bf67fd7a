#include "gateway/mcp/federation_identity.hpp"

#include <boost/json/array.hpp>

namespace gate::gateway {

namespace json = boost::json;

namespace {

// `text` without control characters (line breaks and tabs kept), cut at `most` bytes where a
// character begins, with an ellipsis when cut.
std::string cleaned(std::string_view text, std::size_t most) {
    std::string out;
    out.reserve(std::min(text.size(), most) + 3);
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f)
            continue;
        out.push_back(c);
    }
    if (out.size() <= most)
        return out;
    auto end = most;
    while (end > 0 && (static_cast<unsigned char>(out[end]) & 0xC0) == 0x80)
        --end; // not inside a character
    out.resize(end);
    out += "\xE2\x80\xA6"; // …
    return out;
}

} // namespace

json::object federation_server_info(const config::federation_info& info,
                                    std::string_view gate_version) {
    json::object out{{"name", info.name.value_or("gate")}};
    if (info.title)
        out["title"] = *info.title;
    out["version"] = info.version ? json::string(*info.version) : json::string(gate_version);
    if (info.website_url)
        out["websiteUrl"] = *info.website_url;
    if (!info.icons.empty()) {
        json::array icons;
        for (const auto& i : info.icons) {
            json::object o{{"src", i.src}};
            if (i.mime_type)
                o["mimeType"] = *i.mime_type;
            if (!i.sizes.empty()) {
                json::array sizes;
                for (const auto& s : i.sizes)
                    sizes.emplace_back(s);
                o["sizes"] = std::move(sizes);
            }
            if (i.theme)
                o["theme"] = *i.theme;
            icons.push_back(std::move(o));
        }
        out["icons"] = std::move(icons);
    }
    return out;
}

std::optional<std::string> federation_instructions(const config::federation_instructions& cfg,
                                                   const std::vector<upstream_instructions>& ups) {
    std::string out = cfg.text.value_or("");
    if (cfg.from_upstreams) {
        std::size_t left_out = 0;
        for (const auto& u : ups) {
            if (u.text.empty())
                continue;
            if (left_out > 0) { // the bound is reached: the rest are counted, not written
                ++left_out;
                continue;
            }
            std::string part = out.empty() ? "" : "\n\n";
            part += "Upstream " + std::string(u.id) + " (its tools and prompts are named " +
                    std::string(u.prefix) + "...):\n" + cleaned(u.text, upstream_instructions_cut);
            // Room kept for the last line, so the whole stays within the bound.
            if (out.size() + part.size() + 128 > instructions_bound) {
                ++left_out;
                continue;
            }
            out += part;
        }
        if (left_out > 0)
            out += "\n\n(" + std::to_string(left_out) +
                   " more upstreams' instructions are left out: gate's bound of " +
                   std::to_string(instructions_bound) + " bytes)";
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

} // namespace gate::gateway
