// Where an upstream's message for a client goes: a downstream session's GET stream (the
// session table) or a 2026-07-28 client's listen (the listen hub).
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "gateway/upstream/upstream_message.hpp"

#include <string>

namespace gate::gateway {

class session_delivery {
public:
    virtual bool session_open(const std::string& session) = 0;
    // The principal that opened the session (null: anonymous, or no such session).
    virtual policy::caller_ref principal_of(const std::string& session) const = 0;
    // On the session's stream (or queued for it); false: no such session.
    virtual bool deliver(const std::string& session, const std::string& text) = 0;

protected:
    ~session_delivery() = default;
};

class listen_delivery {
public:
    // On the listen keyed `holder`; false: none.
    virtual bool deliver_to_listen(const std::string& holder, const upstream_message& m) = 0;

protected:
    ~listen_delivery() = default;
};

} // namespace gate::gateway
