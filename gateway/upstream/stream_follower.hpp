// What gate follows at one upstream on behalf of its clients (upstream_subscriptions.cpp):
// resource subscriptions and task news held on gate's own session, counted (the first hold
// subscribes, the last release unsubscribes), made again on a new root session, and at a
// 2026-07-28 upstream gate's own subscriptions/listen stream, which also carries the
// upstream's list changes.
//
// Threading: the io thread, like the client that owns it.
#pragma once

#include "gateway/upstream/request_sender.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_credentials.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_observer.hpp"
#include "gateway/upstream/upstream_requests.hpp"
#include "gateway/upstream/upstream_sessions.hpp"
#include "gateway/upstream/upstream_state.hpp"
#include "protocol/subscription_filter.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace gate::gateway {

class stream_follower {
public:
    struct units {
        gateway::upstream_state& state;
        gateway::upstream_guards& guards;
        gateway::upstream_credentials& credentials;
        gateway::upstream_exchange& exchange;
        gateway::upstream_sessions& sessions;
        gateway::upstream_requests& requests;
        request_sender& sender;
        gateway::upstream_observer& heard; // where the listen's messages go, as a session's would
    };
    explicit stream_follower(units u)
        : state_(u.state), guards_(u.guards), credentials_(u.credentials), exchange_(u.exchange),
          sessions_(u.sessions), requests_(u.requests), sender_(u.sender), heard_(u.heard) {}
    stream_follower(const stream_follower&) = delete;
    stream_follower& operator=(const stream_follower&) = delete;

    // Resource subscriptions gate holds on its own session for any number of clients,
    // counted: the first hold subscribes (resources/subscribe on the root session, or the URI
    // joins gate's subscriptions/listen at a 2026-07-28 upstream), the last release
    // unsubscribes. Why not, when the upstream refused (its JSON-RPC error in `answer`) or
    // cannot be reached.
    boost::asio::awaitable<std::optional<gateway::upstream_failure>>
    hold_subscription(const std::string& uri);
    void release_subscription(const std::string& uri);
    // The tasks extension's notifications/tasks for `task_id`, counted the same way: the task
    // joins gate's subscriptions/listen at this 2026-07-28 upstream. Why not, when the
    // upstream does not speak 2026-07-28, does not offer the extension or cannot be reached.
    boost::asio::awaitable<std::optional<gateway::upstream_failure>>
    hold_task_news(const std::string& task_id);
    void release_task_news(const std::string& task_id);

    // A new root session (generation 1: the first): the listen opens again at a 2026-07-28
    // upstream; an earlier one's held subscriptions are made again after a restart.
    void root_published(std::uint64_t generation);
    // Ends gate's listen (shutdown, retirement).
    void close();

private:
    // gate's own subscriptions/listen at a 2026-07-28 upstream: list changes (for the cache
    // and every client) and the held URIs. One stream; a new filter opens a new stream,
    // which closes the old one once acknowledged.
    void refresh_listen();
    boost::asio::awaitable<void> listen_modern(std::uint64_t version);
    protocol::subscription_filter listen_filter() const;
    // After the upstream restarted, the subscriptions gate held on its old root session.
    void resubscribe();

    gateway::upstream_state& state_;
    gateway::upstream_guards& guards_;
    gateway::upstream_credentials& credentials_;
    gateway::upstream_exchange& exchange_;
    gateway::upstream_sessions& sessions_;
    gateway::upstream_requests& requests_;
    request_sender& sender_;
    gateway::upstream_observer& heard_;
    std::map<std::string, std::size_t> held_uris_;
    std::map<std::string, std::size_t> held_tasks_;
    std::uint64_t listen_version_ = 0;
    std::shared_ptr<transport::upstream_connection> listen_conn_;
    std::shared_ptr<boost::asio::steady_timer> listen_pause_;
};

} // namespace gate::gateway
