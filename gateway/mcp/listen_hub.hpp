// The open listens of 2026-07-28 clients (subscriptions/listen): each under a holder key
// ("listen-<n>", the key its resource subscriptions are held under too), with the filter of
// what it asked for and the queue its event stream is written from. A change notification
// reaches a listener only when its filter asks for it, stamped with the listen's id.
#pragma once

#include "protocol/subscription_filter.hpp"
#include "transport/http/event_stream.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gate::transport {

class listen_hub {
public:
    // A new holder key, unique for the hub's life.
    std::string next_key();
    // The listen `key` opens with the request's `id` (its subscription id) and the filter gate
    // honours; the queue its stream is written from, which lives until the listen closes.
    // `task_owners`: the upstream that owns each of the filter's task ids.
    std::shared_ptr<message_queue> open(const std::string& key, boost::json::value id,
                                        protocol::subscription_filter filter,
                                        boost::asio::any_io_executor ex,
                                        std::map<std::string, std::string> task_owners = {});
    // The listener left: nothing more is queued for it.
    void close(const std::string& key);
    // Queues a change notification for a listener that asked for it; false: `holder` is not a
    // listener. `source`: the text the notification was read from (empty: gate's own).
    bool deliver(const std::string& holder, const boost::json::object& notification,
                 std::string_view source = {});
    // The same for every listener (gate's own news, a list change).
    void deliver_to_all(const boost::json::object& notification);
    // An upstream's notifications/tasks, to the listeners that asked for that task at that
    // upstream (another upstream's task of the same id is not theirs).
    void deliver_task_news(const std::string& upstream, const boost::json::object& notification,
                           std::string_view source);
    // Ends every listen gracefully (shutdown): its result, then its stream closes.
    void close_all();
    std::size_t size() const { return listeners_.size(); }

private:
    struct listener {
        boost::json::value id; // the listen request's id: its subscription id
        protocol::subscription_filter filter;
        std::map<std::string, std::string> task_owners; // task id -> upstream id
        std::shared_ptr<message_queue> out;
    };
    static void offer(listener& l, const boost::json::object& notification,
                      std::string_view source);
    std::unordered_map<std::string, listener> listeners_;
    std::uint64_t keys_ = 0;
};

} // namespace gate::transport
