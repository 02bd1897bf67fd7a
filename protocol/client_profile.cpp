#include "protocol/client_profile.hpp"

#include <array>
#include <boost/json/array.hpp>

namespace gate::protocol {

namespace json = boost::json;

client_profile profile_of(const json::object& capabilities) {
    client_profile p = 0;
    if (auto* s = capabilities.if_contains("sampling"); s && s->is_object())
        p |= profile_bit::sampling;
    if (auto* e = capabilities.if_contains("elicitation"); e && e->is_object()) {
        // An empty elicitation object means form mode (the 2025-06-18 shape).
        const auto& modes = e->get_object();
        if (modes.empty() || modes.contains("form"))
            p |= profile_bit::elicitation_form;
        if (modes.contains("url"))
            p |= profile_bit::elicitation_url;
    }
    if (auto* r = capabilities.if_contains("roots"); r && r->is_object())
        p |= profile_bit::roots;
    if (auto* x = capabilities.if_contains("extensions"); x && x->is_object())
        if (auto* ui = x->get_object().if_contains(ui_extension); ui && ui->is_object())
            p |= profile_bit::ui;
    return p;
}

json::object capabilities_of(client_profile p) {
    json::object caps;
    if (p & profile_bit::sampling)
        caps["sampling"] = json::object{};
    if (p & (profile_bit::elicitation_form | profile_bit::elicitation_url)) {
        json::object modes;
        if (p & profile_bit::elicitation_form)
            modes["form"] = json::object{};
        if (p & profile_bit::elicitation_url)
            modes["url"] = json::object{};
        caps["elicitation"] = std::move(modes);
    }
    if (p & profile_bit::roots)
        caps["roots"] = json::object{};
    if (p & profile_bit::ui)
        caps["extensions"] = {{ui_extension, {{"mimeTypes", json::array{ui_mime_type}}}}};
    return caps;
}

const std::shared_ptr<const json::object>& shared_capabilities_of(client_profile p) {
    static const auto every = [] {
        std::array<std::shared_ptr<const json::object>, profile_count> out;
        for (std::size_t i = 0; i < profile_count; ++i)
            out[i] = std::make_shared<const json::object>(
                capabilities_of(static_cast<client_profile>(i)));
        return out;
    }();
    return every.at(p);
}

} // namespace gate::protocol
