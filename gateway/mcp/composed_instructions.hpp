// The instructions a namespaced federation answers initialize (and server/discover) with,
// composed once per view and per change of any upstream's identity rather than at each
// initialize: with server.instructions.fromUpstreams a thousand upstreams' identities are read
// once, then every session gets the same text. One io thread's, as the views it is handed.
#pragma once

#include "gateway/upstream/live_federation.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gate::gateway {

class composed_instructions {
public:
    // The instructions for a request on `view` (nullopt: none).
    const std::optional<std::string>& of(const std::shared_ptr<const federation_view>& view);

private:
    std::weak_ptr<const federation_view> view_; // composed for (compared by owner, never read)
    std::uint64_t identities_ = 0;              // identities_changed() when composed
    bool composed_ = false;
    std::optional<std::string> text_;
};

} // namespace gate::gateway
