// What upstreams send that is not an answer: change notifications (their lists dropped, every
// connected client told), resource updates (to the listens and sessions subscribed), and
// requests and notifications for one client (to its session, its requests under an id gate
// mints, as the policy allows server-initiated requests: docs/security.md).
#pragma once

#include "actors/federation/federation.hpp"
#include "gateway/mcp/bridge_events.hpp"
#include "gateway/mcp/server_request_judge.hpp"
#include "gateway/mcp/session_delivery.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/request_exit.hpp"
#include "gateway/upstream/live_federation.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway {

class hook_asker;

// The answer gate gives an upstream's request on `bridge` itself (the client is gone, the
// policy refuses it, the client cannot be asked), sent in the background; `source`, the
// request's text, keeps its id as the upstream wrote it.
void answer_upstream(const boost::asio::any_io_executor& ex,
                     std::shared_ptr<upstream_client> client, const std::string& bridge,
                     boost::json::object reply, std::string source = {});

// An upstream's lists of a kind changed (`method`, the notification): its cached lists are
// dropped, here and in the fleet's store, and every connected client hears it (router_line).
class list_news {
public:
    virtual void list_changed(const upstream_client& from, std::string method) = 0;

protected:
    ~list_news() = default;
};

// A task's notifications/tasks from `upstream`, to the listens that hold that task there
// (listen_methods).
class task_news_sink {
public:
    virtual void task_news(const std::string& upstream, const upstream_message& m) = 0;

protected:
    ~task_news_sink() = default;
};

// The requests upstreams put to clients: the id gate gives each (unique among every request
// gate puts to clients) and the record the client's answer is matched with: client_requests.
class server_request_ledger {
public:
    virtual std::string mint_request_id() = 0;
    virtual void record_server_request(const std::string& session, const std::string& minted,
                                       const std::string& upstream,
                                       boost::json::value upstream_id) = 0;

protected:
    ~server_request_ledger() = default;
};

// What the upstream traffic is given, each part by its owner; fakes in
// tests/unit/upstream_traffic_test.cpp.
struct upstream_traffic_services {
    view_source& views;
    list_news& lists;
    session_delivery& sessions; // a downstream session's GET stream
    listen_delivery& listens;   // a 2026-07-28 client's listen
    bridge_events& bridges;
    server_request_ledger& requests;
    pipeline::request_exit& exit; // a request gate refused on a client's behalf, audited
    hook_asker* hook;             // where policy.decisionHook is asked (null: never)
};

class upstream_traffic final : public server_request_judge {
public:
    upstream_traffic(boost::asio::any_io_executor ex, upstream_traffic_services services)
        : ex_(std::move(ex)), services_(services) {}

    // Where a task's news goes, bound once the listens exist (they route through the calls,
    // which judge through this); before that, no listen can hold a task.
    void send_task_news_to(task_news_sink& sink) { task_news_ = &sink; }

    // An upstream's message on a session's GET stream, or on a call's stream with no sink
    // (`bridge`: the downstream session, empty for the shared root session).
    void on_message(const upstream_client* from, const std::string& bridge, upstream_message m);
    // An upstream message in the form the client receives: a request gets a gateway-unique id,
    // recorded so the client's answer finds its way back; the rest as the upstream wrote it.
    std::string to_client(const std::string& session, const std::string& upstream,
                          upstream_message m);
    // Whether upstream `upstream` may send `request` to the client of `who` (null: anonymous).
    // A denied one is audited and, with `bridge`, answered -32042 to the upstream on that
    // session; false then. Without a policy, and for ping and notifications, true.
    bool admit_server_request(const federation_view& view, std::size_t upstream,
                              const policy::caller_ref& who, const boost::json::object& request,
                              const std::optional<std::string>& bridge) override;

    // Whether the decision hook is asked about `request` (policy.decisionHook stages
    // "serverRequest"): a request, not ping, with a hook configured to be asked. `embedded`:
    // a 2026-07-28 upstream's input request, which has no id of its own.
    bool hook_asks(const federation_view& view, const boost::json::object& request,
                   bool embedded) override;
    // Asks it: true when allowed. A denial, or a failure under onError "deny", is audited and,
    // with `bridge`, answered -32042 to the upstream on that session.
    boost::asio::awaitable<bool> hook_admits(std::shared_ptr<const federation_view> view,
                                             std::size_t upstream, policy::caller_ref who,
                                             boost::json::object request,
                                             std::optional<std::string> bridge) override;
    // The same in the background for a message read from a stream: allowed, `deliver` has it
    // (false: its client is gone, and the upstream is told so).
    void judge_then_deliver(std::shared_ptr<const federation_view> view, std::size_t upstream,
                            policy::caller_ref who, upstream_message m, std::string bridge,
                            std::function<bool(upstream_message&)> deliver) override;

private:
    // A request refused on the client's behalf, audited (`said`: the hook's say, if it was
    // asked).
    void audit_refused(std::string_view method, const std::string& server,
                       const policy::caller_ref& who, std::string why,
                       std::optional<boost::json::object> said);
    // `position`: the upstream's place in the current view.
    void resource_updated(std::size_t position, const std::string& bridge, upstream_message m);

    boost::asio::any_io_executor ex_;
    upstream_traffic_services services_;
    task_news_sink* task_news_ = nullptr;
};

} // namespace gate::gateway
