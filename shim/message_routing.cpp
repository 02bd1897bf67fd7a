#include "shim/message_routing.hpp"

#include <boost/json/serialize.hpp>

namespace gate::shim {

namespace json = boost::json;
using protocol::message_kind;

namespace {

std::optional<std::string> progress_token_of(const protocol::message& m, bool in_meta) {
    const auto* params = m.params();
    if (!params)
        return std::nullopt;
    const json::object* holder = params;
    if (in_meta) {
        auto* meta = params->if_contains("_meta");
        holder = meta ? meta->if_object() : nullptr;
    }
    auto* token = holder ? holder->if_contains("progressToken") : nullptr;
    if (!token || !(token->is_string() || token->is_int64() || token->is_uint64()))
        return std::nullopt;
    return json::serialize(*token);
}

bool session_wide(std::string_view method) {
    return method == "notifications/tools/list_changed" ||
           method == "notifications/prompts/list_changed" ||
           method == "notifications/resources/list_changed" ||
           method == "notifications/resources/updated";
}

} // namespace

std::string inflight_requests::key_of(const json::value& id) {
    return json::serialize(id);
}

bool inflight_requests::add(const protocol::message& request, bool client_takes_stream) {
    auto key = key_of(request.id);
    if (by_key_.contains(key))
        return false;
    by_key_.emplace(std::move(key),
                    entry{next_++, progress_token_of(request, true), client_takes_stream});
    return true;
}

void inflight_requests::remove(const std::string& key) {
    by_key_.erase(key);
}

route inflight_requests::route_of(const protocol::message& m) const {
    if (m.kind == message_kind::response) {
        auto key = key_of(m.id);
        if (by_key_.contains(key))
            return {route::to::request, std::move(key)};
        return {route::to::nowhere, {}};
    }
    if (m.kind == message_kind::notification) {
        if (session_wide(m.method))
            return {route::to::session_stream, {}};
        if (m.method == "notifications/progress")
            if (auto token = progress_token_of(m, false))
                for (const auto& [key, e] : by_key_)
                    if (e.progress_token == token)
                        return {route::to::request, key};
    }
    const std::pair<const std::string, entry>* oldest = nullptr;
    for (const auto& kv : by_key_)
        if (kv.second.streams && (!oldest || kv.second.order < oldest->second.order))
            oldest = &kv;
    if (oldest)
        return {route::to::request, oldest->first};
    return {route::to::session_stream, {}};
}

} // namespace gate::shim
