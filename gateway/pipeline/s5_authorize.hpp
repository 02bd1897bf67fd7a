// Stage 5: authorize. It needs nothing but the request and the decision hook: the policy comes
// with the request's snapshot, and the decisions it remembers are its own.
#pragma once

#include "gateway/pipeline/stage.hpp"

#include <memory>
#include <string>

namespace gate::gateway {
class hook_asker;
} // namespace gate::gateway

namespace gate::gateway::pipeline {

// `resource_metadata`: gate's RFC 9728 metadata URL, named in step-up challenges (empty
// without authentication). `hooks`: where policy.decisionHook is asked (null: never).
std::unique_ptr<stage> make_authorize(std::string resource_metadata, hook_asker* hooks);

} // namespace gate::gateway::pipeline
