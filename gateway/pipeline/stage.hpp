// One stage of the pipeline: a unit that gets the request context and either lets the
// request continue to the next stage or answers it (Envoy's filters: Continue or
// StopIteration). The chain (chain.hpp) runs them in the spec's order. A stage decides at once
// where it can and returns a coroutine only where it must wait (step.hpp).
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/stages.hpp"
#include "gateway/pipeline/step.hpp"

namespace gate::gateway::pipeline {

class stage {
public:
    virtual ~stage() = default;
    virtual gateway::stage id() const = 0;
    virtual step run(request_context& ctx) = 0;
};

// Stage 9, the single exit: it records what became of a request (one audit event, one
// request metric, or one rejection metric for a refusal before MCP handling). Synchronous,
// so an answer made anywhere (even at admission, before a coroutine exists) can leave by it.
class exit_stage : public stage {
public:
    gateway::stage id() const final { return gateway::stage::audit; }
    step run(request_context& ctx) final {
        exit(ctx);
        return verdict::answered;
    }
    virtual void exit(request_context& ctx) = 0;
};

} // namespace gate::gateway::pipeline
