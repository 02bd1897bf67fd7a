#include "gateway/upstream/app_only_tools.hpp"

#include "protocol/tool_visibility.hpp"

namespace gate::transport {

void app_only_tools::learn(const boost::json::array& tools) {
    for (const auto& t : tools) {
        const auto* tool = t.if_object();
        const auto* name = tool ? tool->if_contains("name") : nullptr;
        if (!name || !name->is_string())
            continue;
        std::string key(name->get_string());
        if (protocol::visible_to_model(*tool)) {
            hidden_.erase(key);
            continue;
        }
        if (hidden_.size() >= max_tools && !hidden_.contains(key))
            continue; // bounded: what is known stays known
        hidden_.insert(std::move(key));
    }
}

bool app_only_tools::app_only(const std::string& tool) const {
    return hidden_.contains(tool);
}

} // namespace gate::transport
