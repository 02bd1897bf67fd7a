// The parts of upstream_client its translation units share (upstream_client.cpp, the
// subscriptions and the health probes): an endpoint with its pool, and one HTTP answer.
#pragma once

#include "gateway/upstream/upstream_client.hpp"
#include "transport/client/idle_pool.hpp"
#include "transport/client/upstream_connection.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/json/object.hpp>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace gate::transport {

// The revision gate asks for in its own initialize (handshakes, health probes).
inline constexpr std::string_view client_protocol_version = "2025-11-25";

struct upstream_client::endpoint {
    std::size_t index = 0; // in endpoints_ and the rotation
    std::string url, host, port, target;
    std::string authority; // host:port, the Host header
    bool tls = false;
    // Up to 1024 idle connections, none trusted after 4 s idle (Node closes them at 5 s).
    idle_pool<upstream_connection> idle{1024, std::chrono::seconds(4)};
    std::vector<boost::asio::ip::tcp::endpoint> resolved;
};

struct upstream_client::http_answer {
    int status = 0;
    std::string session_id;
    std::optional<upstream_message> message; // the JSON-RPC response, when one came
    bool stream_unfinished = false; // an event stream whose end had not arrived with the answer
};

} // namespace gate::transport
