#include "gateway/upstream/tool_param_headers.hpp"

#include "protocol/keep_items.hpp"

#include <algorithm>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace json = boost::json;

namespace {

std::string_view name_of(const json::value& tool) {
    auto* t = tool.if_object();
    auto* n = t ? t->if_contains("name") : nullptr;
    return n && n->is_string() ? std::string_view(n->get_string()) : std::string_view();
}

} // namespace

void tool_param_headers::learn(json::array& tools, std::vector<std::string>* sources,
                               const std::string& upstream) {
    protocol::keep_items(tools, sources, [&](const json::value& tool) {
        auto* t = tool.if_object();
        auto read = protocol::read_param_headers(t ? t->if_contains("inputSchema") : nullptr);
        std::string name(name_of(tool));
        if (auto* why = std::get_if<std::string>(&read)) {
            spdlog::warn("upstream {}: tool {} dropped from tools/list: {}", upstream,
                         protocol::printable(name, 200), protocol::printable(*why, 400));
            by_tool_.erase(name);
            if (dropped_.size() >= max_dropped)
                dropped_.clear();
            dropped_[name] = std::move(*why);
            return false;
        }
        dropped_.erase(name);
        auto& found = std::get<protocol::param_headers>(read);
        if (found.empty())
            by_tool_.erase(name);
        else
            by_tool_[name] = std::move(found);
        return true;
    });
}

const std::string* tool_param_headers::dropped(const std::string& tool) const {
    auto it = dropped_.find(tool);
    return it == dropped_.end() ? nullptr : &it->second;
}

const protocol::param_headers* tool_param_headers::find(const std::string& tool) const {
    auto it = by_tool_.find(tool);
    return it == by_tool_.end() ? nullptr : &it->second;
}

const std::pair<const std::string, protocol::param_headers>*
tool_param_headers::find_if(const std::function<bool(std::string_view)>& is_it) const {
    for (const auto& entry : by_tool_)
        if (is_it(entry.first))
            return &entry;
    return nullptr;
}

protocol::header_fields
tool_param_headers::fields_for(const json::object& params,
                               const protocol::sent_param_headers* client) const {
    auto* n = params.if_contains("name");
    auto* a = params.if_contains("arguments");
    const auto* wanted = n && n->is_string() ? find(std::string(n->get_string())) : nullptr;
    protocol::header_fields fields;
    if (wanted)
        fields = protocol::param_header_fields(*wanted, a ? a->if_object() : nullptr);
    if (client)
        for (const auto& [name, value] : *client) {
            bool own = wanted && std::any_of(wanted->begin(), wanted->end(), [&](const auto& w) {
                           return protocol::same_header_name(w.name, name);
                       });
            if (!own)
                fields.emplace_back(std::string(protocol::param_header_prefix) + name, value);
        }
    return fields;
}

} // namespace gate::gateway
