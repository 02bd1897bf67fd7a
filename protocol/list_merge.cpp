#include "protocol/list_merge.hpp"

#include "protocol/ui_uri.hpp"

#include <algorithm>
#include <boost/json/object.hpp>
#include <vector>

namespace gate::protocol {

namespace json = boost::json;

namespace {
std::string_view identity_key(list_kind kind) {
    switch (kind) {
    case list_kind::resources:
        return "uri";
    case list_kind::resource_templates:
        return "uriTemplate";
    case list_kind::tasks:
        return "taskId";
    default:
        return "name";
    }
}
} // namespace

json::array merge_lists(list_kind kind, const name_codec& codec,
                        std::span<const upstream_items> parts) {
    json::array out;
    std::size_t total = 0;
    for (const auto& part : parts)
        total += part.items ? part.items->size() : 0;
    out.reserve(total);
    // Passthrough lists the upstream's names as they are, unless they are to be shortened.
    bool rewrite = traits(kind).rewrite_names && (!codec.passthrough() || codec.max_length() > 0);
    bool untouched = codec.passthrough() && !rewrite;
    for (const auto& part : parts) {
        if (!part.items)
            continue;
        for (const auto& item : *part.items) {
            auto* obj = item.if_object();
            if (!obj || untouched) {
                out.push_back(item);
                continue;
            }
            json::object copy = *obj;
            if (auto* name = copy.if_contains("name"); rewrite && name && name->is_string())
                *name = codec.client_name(part.upstream, name->get_string());
            // An App's view, named per upstream (protocol/ui_uri.hpp).
            if (!codec.passthrough())
                rewrite_ui_uris(kind, codec, part.upstream, copy);
            out.push_back(std::move(copy));
        }
    }
    return out;
}

std::uint64_t list_fingerprint(list_kind kind, const json::array& merged) {
    std::uint64_t h = 1469598103934665603ull ^ static_cast<std::uint64_t>(kind);
    auto key = identity_key(kind);
    for (const auto& item : merged) {
        std::string_view id;
        if (auto* obj = item.if_object())
            if (auto* v = obj->if_contains(key); v && v->is_string())
                id = v->get_string();
        for (unsigned char ch : id) {
            h ^= ch;
            h *= 1099511628211ull;
        }
        h ^= 0x1f; // item boundary: ["ab","c"] and ["a","bc"] differ
        h *= 1099511628211ull;
    }
    return h;
}

page cut_page(const json::array& merged, std::uint32_t offset, std::int64_t page_size) {
    page p;
    if (offset >= merged.size())
        return p;
    std::size_t end = merged.size();
    if (page_size > 0 && offset + static_cast<std::size_t>(page_size) < end)
        end = offset + static_cast<std::size_t>(page_size);
    p.items.reserve(end - offset);
    for (std::size_t i = offset; i < end; ++i)
        p.items.push_back(merged[i]);
    if (end < merged.size())
        p.next_offset = static_cast<std::uint32_t>(end);
    return p;
}

} // namespace gate::protocol

namespace gate::protocol {

json::array merge_by_id(std::string_view id_key, std::span<const upstream_items> parts) {
    struct keyed {
        std::string_view id;
        std::size_t upstream;
        const json::value* item;
    };
    std::vector<keyed> all;
    for (const auto& part : parts) {
        if (!part.items)
            continue;
        for (const auto& item : *part.items) {
            std::string_view id;
            if (auto* o = item.if_object())
                if (auto* v = o->if_contains(id_key); v && v->is_string())
                    id = v->get_string();
            all.push_back({id, part.upstream, &item});
        }
    }
    std::stable_sort(all.begin(), all.end(), [](const keyed& a, const keyed& b) {
        return a.id != b.id ? a.id < b.id : a.upstream < b.upstream;
    });
    json::array out;
    out.reserve(all.size());
    for (const auto& k : all)
        out.push_back(*k.item);
    return out;
}

} // namespace gate::protocol
