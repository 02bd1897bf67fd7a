// The open listens of 2026-07-28 clients (subscriptions/listen): each under a holder key
// ("listen-<n>", the key its resource subscriptions are held under too), with the filter of
// what it asked for and the queue its event stream is written from. A change notification
// reaches a listener only when its filter asks for it, stamped with the listen's id.
#pragma once

#include "gateway/mcp/session_delivery.hpp"
#include "protocol/subscription_filter.hpp"
#include "transport/http/event_stream.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::gateway {

struct request_context;

class listen_hub final : public listen_delivery {
public:
    // A new holder key, unique for the hub's life.
    std::string next_key();
    // Which io thread this hub is (docs/io-threads.md): the keys it mints name it, so no two
    // threads' listens share a key in the bridge keeper's records of who holds what.
    void place_in(std::size_t thread, std::size_t threads) {
        prefix_ = threads > 1 ? "listen-" + std::to_string(thread) + "." : "listen-";
    }
    // The listen `key` opens with the request's `id` (its subscription id) and the filter gate
    // honours; the queue its stream is written from, which lives until the listen closes.
    // `task_owners`: the upstream that owns each of the filter's task ids. `listener`: the
    // listen's own request (who listens), alive until close(key).
    std::shared_ptr<transport::message_queue>
    open(const std::string& key, boost::json::value id, protocol::subscription_filter filter,
         boost::asio::any_io_executor ex, std::map<std::string, std::string> task_owners = {},
         const request_context* listener = nullptr);
    // The listener left: nothing more is queued for it.
    void close(const std::string& key);
    // Queues a change notification for a listener that asked for it; false: `holder` is not a
    // listener. `source`: the text the notification was read from (empty: gate's own).
    bool deliver(const std::string& holder, const boost::json::object& notification,
                 std::string_view source = {});
    // The same for every listener (gate's own news, a list change).
    void deliver_to_all(const boost::json::object& notification);
    bool deliver_to_listen(const std::string& holder, const upstream_message& m) override {
        return deliver(holder, m.body(), m.raw());
    }
    // A listener's message being judged holds its place: what is delivered to that listener
    // after it waits behind it, so the listener hears its news in the order gate read it.
    // nullopt: `holder` is not a listener.
    std::optional<std::uint64_t> hold_place(const std::string& holder);
    // The judged message takes its place (nullopt: nothing goes there); it and what waited
    // behind it go out, up to the next place still held.
    void fill_place(const std::string& holder, std::uint64_t place,
                    std::optional<boost::json::object> notification, std::string_view source = {});
    // The listens that asked for task `task` at `upstream` (another upstream's task of the
    // same id is not theirs): their keys, their requests, and the executor their streams
    // are written on. An upstream's notifications/tasks reaches them through the judge
    // (listen_methods::task_news), then deliver().
    struct task_listener {
        std::string key;
        const request_context* listener;
        boost::asio::any_io_executor ex;
    };
    std::vector<task_listener> task_listeners(const std::string& upstream,
                                              std::string_view task) const;
    // Ends every listen gracefully (shutdown): its result, then its stream closes.
    void close_all();
    std::size_t size() const { return listeners_.size(); }

private:
    struct listener {
        boost::json::value id; // the listen request's id: its subscription id
        protocol::subscription_filter filter;
        std::map<std::string, std::string> task_owners; // task id -> upstream id
        std::shared_ptr<transport::message_queue> out;
        const request_context* request = nullptr; // the listen's own
        boost::asio::any_io_executor ex;
        // Behind a message still being judged: each held place, and what came after it.
        struct waiting {
            std::optional<std::uint64_t> place; // held, until filled; none: ready to go
            std::optional<boost::json::object> notification;
            std::string source;
        };
        std::deque<waiting> behind;
        std::uint64_t places = 0;
    };
    static void offer(listener& l, const boost::json::object& notification,
                      std::string_view source);
    // Offers it now, or queues it behind a held place.
    static void pass(listener& l, const boost::json::object& notification, std::string_view source);
    std::unordered_map<std::string, listener> listeners_;
    std::uint64_t keys_ = 0;
    std::string prefix_ = "listen-";
};

} // namespace gate::gateway
