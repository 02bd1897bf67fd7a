// What the MCP method groups tell the bridge keeper (actors/bridging) about clients' bridged
// sessions, and what they ask it: implemented by bridge_line, the keeper's line from the io
// thread, and faked in the groups' unit tests.
#pragma once

#include "actors/bridging/bridge_messages.hpp"
#include "gateway/mcp/keeper_batch.hpp"

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway {

class bridge_events {
public:
    // Whether a keeper runs (bridging on): without one, nothing is told or asked.
    virtual bool keeps_bridges() = 0;
    // The client's bridged session at `upstream` was used.
    virtual void used(const std::string& session, const std::string& upstream) = 0;
    // A client's call went to its bridged session as request `upstream_id` (the strings
    // outlive the call: keeper_batch::open_call); it is over.
    virtual void call_sent(keeper_batch::open_call& open, const std::string& session,
                           const std::string& client_id, const std::string& upstream,
                           std::int64_t upstream_id) = 0;
    virtual void call_over(keeper_batch::open_call& open) = 0;
    // A holder (a session, or a listen's key) subscribed to `uri` at `upstream`, or left it.
    virtual void subscription_changed(const std::string& holder, const std::string& upstream,
                                      const std::string& uri, bool subscribed) = 0;
    // A session's GET stream opened or closed.
    virtual void listening(const std::string& session, bool open) = 0;
    // The upstream and upstream id of the client's call `request_id` (JSON text), if the
    // keeper holds it running.
    virtual boost::asio::awaitable<std::optional<actors::call_target>>
    cancelled_call(const std::string& session, const std::string& request_id) = 0;
    // The sessions subscribed to `uri` at `upstream` (nullopt: the keeper did not answer);
    // `origin`: the bridged session the update came on, if any.
    virtual boost::asio::awaitable<std::optional<std::vector<std::string>>>
    subscribers(const std::string& upstream, const std::string& uri,
                std::optional<std::string> origin) = 0;

protected:
    ~bridge_events() = default;
};

} // namespace gate::gateway
