// Stage 1: the Host/Origin allowlist. Its check runs at admission on the header alone (every
// endpoint), so it is offered as a function beside the stage.
#pragma once

#include "gateway/pipeline/stage.hpp"
#include "protocol/gateway_error.hpp"
#include "transport/http/host_guard.hpp"
#include "transport/http/http_reply.hpp"

#include <memory>
#include <optional>
#include <string_view>

namespace gate::gateway::pipeline {

// Checks the allowlist of the view its request loaded.
std::unique_ptr<stage> make_host_origin();

// The refusal's row (forbidden_host or forbidden_origin), or nothing.
std::optional<protocol::gateway_error> check_host_origin(const transport::host_guard& guard,
                                                         std::optional<std::string_view> host,
                                                         std::optional<std::string_view> origin);
// Its answer: 403, and the connection closed (the body was not read).
transport::http_reply forbidden_reply(protocol::gateway_error refused);

} // namespace gate::gateway::pipeline
