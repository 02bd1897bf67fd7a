// Where an answer made outside the stages leaves (chain::conclude): the upstream traffic's
// refusals on a client's behalf, a listen's end.
#pragma once

#include "gateway/pipeline/request_context.hpp"

namespace gate::gateway::pipeline {

class request_exit {
public:
    virtual void conclude(request_context& ctx) = 0;

protected:
    ~request_exit() = default;
};

} // namespace gate::gateway::pipeline
