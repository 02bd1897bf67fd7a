// Stage 5: authorize. It needs nothing but the request: the policy comes with the request's
// snapshot, and the decisions it remembers are its own.
#pragma once

#include "gateway/pipeline/stage.hpp"

#include <memory>

namespace gate::transport::pipeline {

std::unique_ptr<stage> make_authorize();

} // namespace gate::transport::pipeline
