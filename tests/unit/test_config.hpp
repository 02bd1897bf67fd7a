// Builds configuration documents in tests without going through the parser.
#pragma once

#include "actors/federation/snapshot.hpp"

#include <memory>

namespace gate::test {

inline std::shared_ptr<const actors::snapshot> two_upstreams(std::int64_t page_size = 200,
                                                             std::int64_t cache_ttl_ms = 30000) {
    auto doc = std::make_shared<config::document>();
    for (auto ns : {"a", "b"}) {
        config::upstream u;
        u.id = std::string("up-") + ns;
        u.urls = {"http://127.0.0.1:1/mcp"};
        u.namespace_ = ns;
        u.cache_ttl_ms = cache_ttl_ms;
        doc->upstreams.push_back(u);
    }
    doc->routing.page_size = page_size;
    return actors::make_snapshot(doc, 1);
}

} // namespace gate::test
