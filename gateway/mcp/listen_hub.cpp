#include "gateway/mcp/listen_hub.hpp"

#include "process/version.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/modern_request.hpp"

#include <boost/json/serialize.hpp>

namespace gate::gateway {

namespace json = boost::json;

std::string listen_hub::next_key() {
    return prefix_ + std::to_string(++keys_);
}

std::shared_ptr<transport::message_queue>
listen_hub::open(const std::string& key, json::value id, protocol::subscription_filter filter,
                 boost::asio::any_io_executor ex, std::map<std::string, std::string> task_owners,
                 const request_context* request) {
    auto out = std::make_shared<transport::message_queue>(ex);
    auto& l = listeners_[key] = listener{};
    l.id = std::move(id);
    l.filter = std::move(filter);
    l.task_owners = std::move(task_owners);
    l.out = out;
    l.request = request;
    l.ex = std::move(ex);
    return out;
}

void listen_hub::close(const std::string& key) {
    listeners_.erase(key);
}

bool listen_hub::deliver(const std::string& holder, const json::object& notification,
                         std::string_view source) {
    auto it = listeners_.find(holder);
    if (it == listeners_.end())
        return false;
    pass(it->second, notification, source);
    return true;
}

void listen_hub::pass(listener& l, const json::object& notification, std::string_view source) {
    if (l.behind.empty())
        return offer(l, notification, source);
    l.behind.push_back({std::nullopt, notification, std::string(source)});
}

std::optional<std::uint64_t> listen_hub::hold_place(const std::string& holder) {
    auto it = listeners_.find(holder);
    if (it == listeners_.end())
        return std::nullopt;
    auto& l = it->second;
    auto place = l.places++;
    l.behind.push_back({place, std::nullopt, {}});
    return place;
}

void listen_hub::fill_place(const std::string& holder, std::uint64_t place,
                            std::optional<json::object> notification, std::string_view source) {
    auto it = listeners_.find(holder);
    if (it == listeners_.end())
        return; // the listener left while its message was judged
    auto& l = it->second;
    for (auto& w : l.behind)
        if (w.place == place) {
            w.place.reset();
            w.notification = std::move(notification);
            w.source = std::string(source);
            break;
        }
    for (; !l.behind.empty() && !l.behind.front().place; l.behind.pop_front())
        if (const auto& ready = l.behind.front(); ready.notification)
            offer(l, *ready.notification, ready.source);
}

void listen_hub::offer(listener& l, const json::object& notification, std::string_view source) {
    std::string_view method;
    if (auto* m = notification.if_contains("method"); m && m->is_string())
        method = m->get_string();
    if (l.filter.accepts(method, protocol::notification_subject(notification))) {
        auto stamped = notification;
        protocol::stamp_subscription(stamped, l.id);
        // As the upstream wrote it (source), with the listener's stamp added.
        l.out->push(protocol::serialize_preserving(stamped, source));
    }
}

void listen_hub::deliver_to_all(const json::object& notification) {
    for (auto& [key, l] : listeners_)
        pass(l, notification, {});
}

std::vector<listen_hub::task_listener> listen_hub::task_listeners(const std::string& upstream,
                                                                  std::string_view task) const {
    std::vector<task_listener> found;
    for (const auto& [key, l] : listeners_)
        if (auto owner = l.task_owners.find(std::string(task));
            owner != l.task_owners.end() && owner->second == upstream && l.request)
            found.push_back({key, l.request, l.ex});
    return found;
}

void listen_hub::close_all() {
    // The graceful end of a subscription: its result, then the stream closes.
    for (const auto& [key, l] : listeners_) {
        json::object done{{"jsonrpc", "2.0"},
                          {"id", l.id},
                          {"result",
                           {{"resultType", "complete"},
                            {"_meta",
                             {{protocol::meta_subscription_id, l.id},
                              {protocol::meta_server_info,
                               {{"name", "gate"}, {"version", process::gate_version}}}}}}}};
        l.out->push(json::serialize(done), true);
    }
}

} // namespace gate::gateway
