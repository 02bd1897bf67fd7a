// The gateway's nine stages, one unit each in this folder (s1_host_origin.cpp ... s9_audit.cpp),
// wired to the gateway they serve.
#pragma once

#include "gateway/entry/gateway.hpp"
#include "gateway/pipeline/chain.hpp"
#include "gateway/pipeline/s4_route.hpp"
#include "gateway/pipeline/s7_proxy.hpp"
#include "gateway/pipeline/s8_egress.hpp"
#include "protocol/gateway_error.hpp"
#include "transport/http/host_guard.hpp"

#include <optional>
#include <string_view>

namespace gate::transport::pipeline {

std::unique_ptr<stage> make_host_origin(const host_guard& guard);
std::unique_ptr<stage> make_authorize();

// Stage 1's check, applied at admission on the header alone (every endpoint): the refusal's
// row (forbidden_host or forbidden_origin), or nothing.
std::optional<protocol::gateway_error> check_host_origin(const host_guard& guard,
                                                         std::optional<std::string_view> host,
                                                         std::optional<std::string_view> origin);
// Its answer: 403, and the connection closed (the body was not read).
http_reply forbidden_reply(protocol::gateway_error refused);

} // namespace gate::transport::pipeline
