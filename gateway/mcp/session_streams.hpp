// A session's own transport on the MCP endpoint: the GET stream the upstreams' messages reach
// the client on, and DELETE, which ends the session everywhere.
#pragma once

#include "gateway/mcp/bridge_events.hpp"
#include "gateway/mcp/session_table.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <optional>
#include <string>

namespace gate::gateway {

// What a session's streams ask of the gateway (answered by gateway/entry/mcp_method_services).
class session_stream_services {
public:
    // Whether `session` is one `caller` (at `peer`, when anonymous) opened, here or, with a
    // fleet, on another instance.
    virtual boost::asio::awaitable<bool> known_session(const std::string& session,
                                                       const policy::caller_ref& caller,
                                                       const boost::asio::ip::address& peer) = 0;
    // The gateway is stopping: streams close.
    virtual bool stopping() const = 0;
    // A session ended: at every upstream, in the fleet's store and on every instance.
    virtual void end_everywhere(const std::string& session) = 0;

protected:
    ~session_stream_services() = default;
};

class session_streams {
public:
    session_streams(session_table& sessions, session_stream_services& services,
                    bridge_events& bridges)
        : sessions_(sessions), services_(services), bridges_(bridges) {}

    // GET: the session's event stream, until DELETE, the client leaving or shutdown; the
    // refusal (406, 400, 404, 429) where it cannot be opened.
    boost::asio::awaitable<std::optional<transport::http_reply>>
    get(boost::beast::tcp_stream& stream, const transport::http_request& req,
        const policy::caller_ref& caller, const boost::asio::ip::address& peer);
    // DELETE: the session ends (400 without one, 404 for one the caller did not open).
    boost::asio::awaitable<transport::http_reply> remove(const transport::http_request& req,
                                                         const policy::caller_ref& caller,
                                                         const boost::asio::ip::address& peer);

private:
    session_table& sessions_;
    session_stream_services& services_;
    bridge_events& bridges_;
};

} // namespace gate::gateway
