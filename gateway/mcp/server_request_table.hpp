// Requests upstreams sent to clients (sampling, elicitation, roots, ping), pending until the
// client answers: the gateway-minted id the client saw -> the upstream and the upstream's
// own id. Kept on the io thread, not in the bridge keeper: the client's answer is on the
// sampling round trip's critical path, and a map lookup here beats a round trip to an actor
// on another thread. Plain C++.
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace gate::gateway {

// Where the answer to an upstream's request goes back.
struct server_request_target {
    std::string upstream; // its configured id
    boost::json::value upstream_id;
};

class server_request_table {
public:
    // The upstream's request reached the client of `session` under `minted_id`.
    void opened(const std::string& session, const std::string& minted_id,
                server_request_target target);
    // The client answered `minted_id`: where it goes, once. Another session's id is unknown.
    std::optional<server_request_target> take(const std::string& session,
                                              const std::string& minted_id);
    // The client's session ended, or its bridged session at `upstream` did: requests made
    // there can no longer be answered.
    void forget_session(const std::string& session);
    void forget_bridge(const std::string& session, const std::string& upstream);
    void forget_upstream(const std::string& upstream);
    std::size_t size() const { return pending_.size(); }

private:
    std::map<std::pair<std::string, std::string>, server_request_target> pending_;
};

} // namespace gate::gateway
