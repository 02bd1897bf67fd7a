#include "gateway/upstream/app_only_tools.hpp"

#include "protocol/tool_visibility.hpp"

namespace gate::transport {

void app_only_tools::learn(const boost::json::array& tools) {
    for (const auto& t : tools) {
        const auto* tool = t.if_object();
        const auto* name = tool ? tool->if_contains("name") : nullptr;
        if (!name || !name->is_string())
            continue;
        bool hidden = !protocol::visible_to_model(*tool);
        if (!hidden && by_tool_.empty())
            continue; // nothing to remember: most upstreams have no app-only tool
        if (by_tool_.size() >= max_tools)
            by_tool_.clear();
        by_tool_[std::string(name->get_string())] = hidden;
    }
}

bool app_only_tools::app_only(const std::string& tool) const {
    auto it = by_tool_.find(tool);
    return it != by_tool_.end() && it->second;
}

} // namespace gate::transport
