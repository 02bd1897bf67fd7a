// What the units of upstream_client share in their .cpp files: how a failure is made.
#pragma once

#include "gateway/upstream/upstream_call.hpp"

#include <optional>
#include <string>
#include <utility>

namespace gate::gateway::upstream::parts {

inline upstream_failure fail(upstream_failure::kind k, std::string msg, int status = 0) {
    return upstream_failure{k, std::move(msg), status, std::nullopt};
}

// The client cancelled the call: nothing the upstream did wrong.
inline upstream_failure cancelled(const call_cancel& cancel) {
    auto f = fail(upstream_failure::kind::protocol, "cancelled: " + cancel.reason());
    f.upstream_at_fault = false;
    return f;
}

} // namespace gate::gateway::upstream::parts
