// A request's client as lists are asked and cached for (protocol/client_profile.hpp):
// implemented by upstream_calls, which reads it from the session's capabilities.
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "protocol/client_profile.hpp"

namespace gate::gateway {

class client_profiles {
public:
    virtual protocol::client_profile profile_of(request_context& ctx) = 0;

protected:
    ~client_profiles() = default;
};

} // namespace gate::gateway
