// The parts of upstream_client its translation units share: an endpoint with its pool, one
// HTTP answer, and how a failure is made.
#pragma once

#include "gateway/upstream/upstream_client.hpp"
#include "transport/client/idle_pool.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/http/header_writer.hpp"

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

// Shared by the translation units of upstream_client.
namespace upstream_parts {

inline upstream_failure fail(upstream_failure::kind k, std::string msg, int status = 0) {
    return upstream_failure{k, std::move(msg), status, std::nullopt};
}

// A request whose head would carry a control character is never sent: nothing reached the
// upstream, which is not at fault for what gate refused to write.
inline upstream_failure refused_head(const header_writer& head) {
    auto f = fail(upstream_failure::kind::protocol,
                  "gate refused to send the header " + head.refused() +
                      " upstream: its value holds a control character");
    f.upstream_at_fault = false;
    return f;
}

} // namespace upstream_parts

} // namespace gate::transport
