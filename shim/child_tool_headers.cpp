#include "shim/child_tool_headers.hpp"

namespace gate::shim {

namespace json = boost::json;

void child_tool_headers::learn(const json::object& answer) {
    const auto* r = answer.if_contains("result");
    const auto* result = r ? r->if_object() : nullptr;
    const auto* t = result ? result->if_contains("tools") : nullptr;
    const auto* tools = t ? t->if_array() : nullptr;
    if (!tools)
        return;
    for (const auto& item : *tools) {
        const auto* tool = item.if_object();
        const auto* name = tool ? tool->if_contains("name") : nullptr;
        if (!name || !name->is_string())
            continue;
        auto read = protocol::read_param_headers(tool->if_contains("inputSchema"));
        auto* found = std::get_if<protocol::param_headers>(&read);
        std::string key(name->get_string());
        if (!found || found->empty()) {
            by_tool_.erase(key);
            continue;
        }
        if (by_tool_.size() >= max_tools)
            by_tool_.clear();
        by_tool_[std::move(key)] = std::move(*found);
    }
}

std::optional<std::string>
child_tool_headers::mismatch(const json::object* params,
                             const protocol::sent_param_headers& sent) const {
    const auto* name = params ? params->if_contains("name") : nullptr;
    if (!name || !name->is_string())
        return std::nullopt;
    auto it = by_tool_.find(std::string_view(name->get_string()));
    if (it == by_tool_.end())
        return std::nullopt;
    const auto* arguments = params->if_contains("arguments");
    return protocol::check_param_headers(it->second, arguments ? arguments->if_object() : nullptr,
                                         sent);
}

} // namespace gate::shim
