#include "gateway/upstream/listed_tools.hpp"

#include "protocol/tool_visibility.hpp"

namespace gate::transport {

void listed_tools::learn(const boost::json::array& tools) {
    listed_ = true;
    for (const auto& t : tools) {
        const auto* tool = t.if_object();
        const auto* name = tool ? tool->if_contains("name") : nullptr;
        if (!name || !name->is_string())
            continue;
        std::string key(name->get_string());
        auto it = tools_.find(key);
        if (it == tools_.end()) {
            if (tools_.size() >= max_tools)
                continue; // bounded: what is known stays known
            it = tools_.emplace(std::move(key), facts{}).first;
        }
        it->second = {!protocol::visible_to_model(*tool), protocol::tool_hints::of(*tool)};
    }
}

bool listed_tools::app_only(const std::string& tool) const {
    auto it = tools_.find(tool);
    return it != tools_.end() && it->second.app_only;
}

std::optional<protocol::tool_hints> listed_tools::hints(const std::string& tool) const {
    auto it = tools_.find(tool);
    if (it == tools_.end())
        return std::nullopt;
    return it->second.hints;
}

} // namespace gate::transport
