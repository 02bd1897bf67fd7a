// A fetched list filtered in place: the items a predicate keeps, in their order, with the
// texts the upstream wrote them as (index for index) kept beside them, so the list still goes
// on as written (protocol/json_preserve).
#pragma once

#include <boost/json/array.hpp>
#include <string>
#include <utility>
#include <vector>

namespace gate::protocol {

// `texts` may be null or shorter than `items` (texts not known).
template <class Keep>
void keep_items(boost::json::array& items, std::vector<std::string>* texts, Keep&& keep) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (!keep(items[i]))
            continue;
        if (kept != i) {
            items[kept] = std::move(items[i]);
            if (texts && i < texts->size())
                (*texts)[kept] = std::move((*texts)[i]);
        }
        ++kept;
    }
    items.resize(kept);
    if (texts && texts->size() > kept)
        texts->resize(kept);
}

} // namespace gate::protocol
