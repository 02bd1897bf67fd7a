// Merging the lists of several upstreams into one federated list, and cutting it into pages.
#pragma once

#include "protocol/list_kind.hpp"
#include "protocol/name_codec.hpp"

#include <boost/json/array.hpp>
#include <cstdint>
#include <optional>
#include <span>

namespace gate::protocol {

struct upstream_items {
    std::size_t upstream;
    const boost::json::array* items;
};

// Upstreams in configuration order, items in upstream order; tool and prompt names
// rewritten through the codec, ui:// URIs per upstream (protocol/ui_uri.hpp), everything
// else carried unchanged.
boost::json::array merge_lists(list_kind kind, const name_codec& codec,
                               std::span<const upstream_items> parts);

// Items of every upstream in one order that does not depend on which upstream answered first:
// by the string member `id_key` (bytewise), then by upstream. Items are carried unchanged.
boost::json::array merge_by_id(std::string_view id_key, std::span<const upstream_items> parts);

// Identity of a merged list: changes whenever an item is added, removed, renamed or reordered.
std::uint64_t list_fingerprint(list_kind kind, const boost::json::array& merged);

struct page {
    boost::json::array items;
    std::optional<std::uint32_t> next_offset;
};

// page_size <= 0 serves the whole list as one page.
page cut_page(const boost::json::array& merged, std::uint32_t offset, std::int64_t page_size);

} // namespace gate::protocol
