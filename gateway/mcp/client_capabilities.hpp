// The capabilities a downstream session's client declared at initialize: implemented by the
// session table, read when a call opens the client's bridged session at an upstream and when
// a log level reaches its sessions.
#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace gate::gateway {

class client_capabilities {
public:
    virtual boost::json::object capabilities(const std::string& session) = 0;

protected:
    ~client_capabilities() = default;
};

} // namespace gate::gateway
