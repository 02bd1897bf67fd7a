// The instructions a namespaced federation answers initialize (and server/discover) with,
// composed once per view and per change of any upstream's instructions rather than at each
// initialize: with server.instructions.fromUpstreams a thousand upstreams' answers are read
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
    // How many times it composed them (tests).
    std::uint64_t compositions() const { return compositions_; }

private:
    std::weak_ptr<const federation_view> view_; // composed for (compared by owner, never read)
    std::uint64_t changes_ = 0;                 // instructions_changed() when composed
    std::uint64_t compositions_ = 0;
    std::optional<std::string> text_;
};

} // namespace gate::gateway
