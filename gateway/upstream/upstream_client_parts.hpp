// What the units of upstream_client share in their .cpp files: how a failure is made.
#pragma once

#include "gateway/upstream/upstream_call.hpp"

#include <optional>
#include <string>
#include <utility>

namespace gate::transport::upstream_parts {

inline upstream_failure fail(upstream_failure::kind k, std::string msg, int status = 0) {
    return upstream_failure{k, std::move(msg), status, std::nullopt};
}

} // namespace gate::transport::upstream_parts
