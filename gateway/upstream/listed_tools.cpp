#include "gateway/upstream/listed_tools.hpp"

#include "protocol/keep_items.hpp"
#include "protocol/tool_definition.hpp"
#include "protocol/tool_visibility.hpp"

namespace gate::gateway {

void listed_tools::take_judgement(const listed_tools& judged,
                                  const std::vector<std::string>& named) {
    blocks_ = judged.blocks_;
    for (const auto& name : named)
        withheld_.erase(name);
    for (const auto& [name, why] : judged.withheld_)
        withheld_.insert_or_assign(name, why);
    if (withheld_.size() > max_tools) // an upstream listing ever new names: this list's only
        withheld_ = judged.withheld_;
}

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

std::string listed_tools::why_withheld(const policy::definition_change& change) {
    if (change.unpinnable)
        return "gate pins at most " +
               std::to_string(policy::definition_pins::max_pins_per_upstream) +
               " tools of one upstream and this upstream's pins are all taken, so it cannot be "
               "pinned (listed as " +
               change.seen + "; a lock file pins every tool it names)";
    if (change.pinned.empty())
        return "it is not in the lock file (listed as " + change.seen + ")";
    return "its definition changed from " + change.pinned + " to " + change.seen;
}

boost::asio::awaitable<void> listed_tools::withhold_changed(boost::json::array& tools,
                                                            std::vector<std::string>* sources,
                                                            definition_watch& watch,
                                                            const config::upstream& cfg) {
    auto mode = watch.mode_of(cfg);
    if (mode == policy::pin_mode::off) {
        blocks_ = false;
        withheld_.clear();
        co_return;
    }
    // Each named tool's digest, computed once for the fleet's pins and the judgement.
    constexpr auto unnamed = static_cast<std::size_t>(-1);
    std::vector<listed_definition> listed;
    std::vector<std::size_t> at; // per item: its place in `listed`, or unnamed
    for (const auto& t : tools) {
        const auto* tool = t.if_object();
        const auto* name = tool ? tool->if_contains("name") : nullptr;
        if (!name || !name->is_string()) {
            at.push_back(unnamed);
            continue;
        }
        at.push_back(listed.size());
        listed.push_back({std::string(name->get_string()), protocol::definition_digest(*tool)});
    }
    co_await watch.agree(cfg.id, listed);
    // Decided after the wait: another list judged meanwhile is not mixed into this one's.
    blocks_ = mode == policy::pin_mode::block;
    withheld_.clear();
    std::size_t item = 0;
    protocol::keep_items(tools, sources, [&](const boost::json::value&) {
        auto place = at[item++];
        if (place == unnamed)
            return true;
        const auto& l = listed[place];
        auto change = watch.judge(cfg.id, l.tool, l.digest, mode);
        if (!change || mode != policy::pin_mode::block)
            return true;
        withheld_[l.tool] = why_withheld(*change);
        return false;
    });
}

const std::string* listed_tools::withheld(const std::string& tool) const {
    auto it = withheld_.find(tool);
    return it == withheld_.end() ? nullptr : &it->second;
}

} // namespace gate::gateway
