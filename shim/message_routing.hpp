// Where a message from a session's child goes. Stdio carries no association between a
// server message and the client request it belongs to, so the shim decides:
//   - a response goes to the request in flight with that id;
//   - a progress notification goes to the request whose _meta.progressToken it names;
//   - session-wide news (list_changed, resources/updated) goes to the session's GET stream;
//   - any other server request or notification rides on the oldest request in flight whose
//     client accepts an event stream (the long-running call is the likely cause), else on
//     the GET stream.
// Ids pass verbatim in both directions: a session is one client and one child.
#pragma once

#include "protocol/json_rpc.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gate::shim {

struct route {
    enum class to { request, session_stream, nowhere } where = to::nowhere;
    std::string request_key; // `to::request`: the key of the request in flight
};

class inflight_requests {
public:
    static std::string key_of(const boost::json::value& id);

    // A client request forwarded to the child; false when its id is already in flight.
    bool add(const protocol::message& request, bool client_takes_stream);
    void remove(const std::string& key);
    bool contains(const std::string& key) const { return by_key_.contains(key); }
    std::size_t size() const { return by_key_.size(); }

    route route_of(const protocol::message& from_child) const;

private:
    struct entry {
        std::uint64_t order;
        std::optional<std::string> progress_token; // serialized
        bool streams;
    };
    std::uint64_t next_ = 0;
    std::map<std::string, entry> by_key_;
};

} // namespace gate::shim
