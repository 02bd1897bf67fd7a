#include "gateway/mcp/composed_instructions.hpp"

#include "actors/federation/snapshot.hpp"
#include "gateway/mcp/federation_identity.hpp"

#include <vector>

namespace gate::gateway {

namespace {

// The configured text, then each upstream's own as its last handshake on any thread gave it.
std::optional<std::string> compose(const federation_view& view) {
    const auto& snap = *view.snap;
    const auto& server = snap.doc->server;
    std::vector<upstream_instructions> theirs;
    std::vector<std::shared_ptr<const boost::json::object>> held; // what `theirs` points into
    if (server.instructions.from_upstreams)
        for (std::size_t i = 0; i < view.size(); ++i) {
            auto identity = view.entry(i)->identity();
            const auto* text = identity ? identity->if_contains("instructions") : nullptr;
            if (!text || !text->is_string())
                continue;
            const auto& u = snap.upstream(i);
            theirs.push_back({u.id,
                              u.namespace_.value_or("") + snap.doc->routing.namespace_separator,
                              text->get_string()});
            held.push_back(std::move(identity));
        }
    return federation_instructions(server.instructions, theirs);
}

} // namespace

const std::optional<std::string>&
composed_instructions::of(const std::shared_ptr<const federation_view>& view) {
    auto changes = instructions_changed(); // before the answers are read
    bool same_view = !view_.owner_before(view) && !view.owner_before(view_);
    if (compositions_ > 0 && same_view && changes == changes_)
        return text_;
    text_ = compose(*view);
    view_ = view;
    changes_ = changes;
    ++compositions_;
    return text_;
}

} // namespace gate::gateway
