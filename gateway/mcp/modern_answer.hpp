// The answer to a 2026-07-28 client's call that runs on its own (it may be parked for the
// client's input): gate::gateway::answer_modern.
#pragma once

#include "gateway/mcp/parked_fleet.hpp"
#include "gateway/mcp/parked_inputs.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <optional>

namespace gate::gateway {

// Answers a 2026-07-28 client from a running call (`park->out`): its events and answer under
// `id` (the request being answered: the call's, or its retry's), or an input_required result
// that parks the call in `inputs` under a new requestState (park_call: recorded for `fleet`
// when there is one), dropped if not resumed in time.
boost::asio::awaitable<std::optional<transport::http_reply>>
answer_modern(parked_inputs& inputs, const parked_fleet& fleet, boost::beast::tcp_stream& stream,
              const transport::http_request& req, std::shared_ptr<input_parking> park,
              boost::json::value id);

// The input_required result that parks a call under `token`: the client is asked
// `input_requests` (the text of the inputRequests object) and comes back with its answers
// and this requestState.
std::string input_required(const boost::json::value& id, const std::string& token,
                           const std::string& input_requests);

} // namespace gate::gateway
