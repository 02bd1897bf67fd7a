#include "gateway/mcp/listen_hub.hpp"

#include "protocol/json_preserve.hpp"
#include "protocol/modern_request.hpp"
#include "transport/process/version.hpp"

#include <boost/json/serialize.hpp>

namespace gate::transport {

namespace json = boost::json;

std::string listen_hub::next_key() {
    return "listen-" + std::to_string(++keys_);
}

std::shared_ptr<message_queue> listen_hub::open(const std::string& key, json::value id,
                                                protocol::subscription_filter filter,
                                                boost::asio::any_io_executor ex,
                                                std::map<std::string, std::string> task_owners) {
    auto out = std::make_shared<message_queue>(std::move(ex));
    listeners_[key] = listener{std::move(id), std::move(filter), std::move(task_owners), out};
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
    offer(it->second, notification, source);
    return true;
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
        offer(l, notification, {});
}

void listen_hub::deliver_task_news(const std::string& upstream, const json::object& notification,
                                   std::string_view source) {
    auto task = protocol::notification_subject(notification);
    for (auto& [key, l] : listeners_)
        if (auto owner = l.task_owners.find(std::string(task));
            owner != l.task_owners.end() && owner->second == upstream)
            offer(l, notification, source);
}

void listen_hub::close_all() {
    // The graceful end of a subscription: its result, then the stream closes.
    for (const auto& [key, l] : listeners_) {
        json::object done{
            {"jsonrpc", "2.0"},
            {"id", l.id},
            {"result",
             {{"resultType", "complete"},
              {"_meta",
               {{protocol::meta_subscription_id, l.id},
                {protocol::meta_server_info, {{"name", "gate"}, {"version", gate_version}}}}}}}};
        l.out->push(json::serialize(done), true);
    }
}

} // namespace gate::transport
