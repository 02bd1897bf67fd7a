// initialize: the gateway's own answer, its capabilities the federation's (the session it
// opens for the client is egress's: gateway/pipeline/s8_egress.cpp); in passthrough the one
// upstream's, asked with the caller's credential where the upstream takes it.
#pragma once

#include "gateway/mcp/upstream_calls.hpp"
#include "gateway/pipeline/request_context.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <string>

namespace gate::gateway {

// The answer to initialize under `id`; `version` is set to the negotiated protocol version.
boost::asio::awaitable<boost::json::object>
initialize_answer(upstream_calls& calls, const boost::json::value& id,
                  const boost::json::object& params, std::string& version, request_context& rec);

} // namespace gate::gateway
