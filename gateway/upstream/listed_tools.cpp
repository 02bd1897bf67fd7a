#include "gateway/upstream/listed_tools.hpp"

#include "protocol/keep_items.hpp"
#include "protocol/tool_definition.hpp"
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

void listed_tools::withhold_changed(boost::json::array& tools, std::vector<std::string>* sources,
                                    definition_watch& watch, const config::upstream& cfg) {
    auto mode = watch.mode_of(cfg);
    blocks_ = mode == pin_mode::block;
    withheld_.clear();
    if (mode == pin_mode::off)
        return;
    protocol::keep_items(tools, sources, [&](const boost::json::value& t) {
        const auto* tool = t.if_object();
        const auto* name = tool ? tool->if_contains("name") : nullptr;
        if (!name || !name->is_string())
            return true;
        auto change = watch.judge(cfg.id, std::string(name->get_string()),
                                  protocol::definition_digest(*tool), mode);
        if (!change || mode != pin_mode::block)
            return true;
        withheld_[std::string(name->get_string())] =
            change->pinned.empty()
                ? "it is not in the lock file (listed as " + change->seen + ")"
                : "its definition changed from " + change->pinned + " to " + change->seen;
        return false;
    });
}

const std::string* listed_tools::withheld(const std::string& tool) const {
    auto it = withheld_.find(tool);
    return it == withheld_.end() ? nullptr : &it->second;
}

} // namespace gate::transport
