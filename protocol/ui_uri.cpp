#include "protocol/ui_uri.hpp"

namespace gate::protocol {

namespace json = boost::json;

namespace {

// Rewrites `v` when it is a ui:// URI string.
bool rewrite_value(json::value* v, const name_codec& codec, std::size_t upstream) {
    if (!v || !v->is_string() || !v->get_string().starts_with(ui_scheme))
        return false;
    auto rewritten = client_ui_uri(codec, upstream, v->get_string());
    if (rewritten == v->get_string())
        return false;
    *v = rewritten;
    return true;
}

} // namespace

std::string client_ui_uri(const name_codec& codec, std::size_t upstream, std::string_view uri) {
    if (codec.passthrough() || !uri.starts_with(ui_scheme))
        return std::string(uri);
    return std::string(ui_scheme) + codec.encode(upstream, uri.substr(ui_scheme.size()));
}

std::optional<upstream_ui_uri> upstream_ui(const name_codec& codec, std::string_view uri) {
    if (codec.passthrough() || !uri.starts_with(ui_scheme))
        return std::nullopt;
    auto decoded = codec.decode(uri.substr(ui_scheme.size()));
    if (!decoded)
        return std::nullopt;
    return upstream_ui_uri{decoded->upstream, std::string(ui_scheme) + std::string(decoded->name)};
}

bool rewrite_ui_uris(list_kind kind, const name_codec& codec, std::size_t upstream,
                     json::object& item) {
    if (codec.passthrough())
        return false;
    switch (kind) {
    case list_kind::tools: {
        auto* meta = item.if_contains("_meta");
        auto* m = meta ? meta->if_object() : nullptr;
        if (!m)
            return false;
        bool changed = rewrite_value(m->if_contains("ui/resourceUri"), codec, upstream);
        if (auto* ui = m->if_contains("ui"); ui && ui->is_object())
            changed = rewrite_value(ui->get_object().if_contains("resourceUri"), codec, upstream) ||
                      changed;
        return changed;
    }
    case list_kind::resources:
        return rewrite_value(item.if_contains("uri"), codec, upstream);
    case list_kind::resource_templates:
        return rewrite_value(item.if_contains("uriTemplate"), codec, upstream);
    default:
        return false;
    }
}

bool restore_read_uris(json::object& response, std::string_view upstream_uri,
                       std::string_view client_uri) {
    auto* r = response.if_contains("result");
    auto* result = r ? r->if_object() : nullptr;
    auto* c = result ? result->if_contains("contents") : nullptr;
    if (!c || !c->is_array())
        return false;
    bool changed = false;
    for (auto& content : c->get_array()) {
        auto* o = content.if_object();
        auto* uri = o ? o->if_contains("uri") : nullptr;
        if (uri && uri->is_string() && uri->get_string() == upstream_uri) {
            *uri = client_uri;
            changed = true;
        }
    }
    return changed;
}

} // namespace gate::protocol
