// A named call's path from its POST to its answer: stages 4-9 run for it (stages 2-3 ran when
// the request was read), and what its upstream says before answering reaches the client
// first. A session's call streams those messages as an event stream that ends with the
// answer; a 2026-07-28 client's call runs on its own, so it can be parked for the client's
// input (input_required) and resumed by the retry that carries it.
#pragma once

#include "gateway/mcp/parked_fleet.hpp"
#include "gateway/mcp/parked_inputs.hpp"
#include "gateway/mcp/upstream_traffic.hpp"
#include "gateway/pipeline/chain.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "protocol/json_rpc.hpp"
#include "transport/http/http_reply.hpp"
#include "transport/http/http_server.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <optional>
#include <string>

namespace gate::gateway {

// Where a call's stream parks a 2026-07-28 call: client_requests.
class call_stream_services {
public:
    // The fleet's store for parked calls, and this instance's tag (no store: no fleet).
    virtual parked_fleet parked_calls() = 0;

protected:
    ~call_stream_services() = default;
};

class call_streams {
public:
    call_streams(pipeline::chain& stages, upstream_traffic& news, parked_inputs& inputs,
                 call_stream_services& services)
        : stages_(stages), news_(news), inputs_(inputs), services_(services) {}

    // A named call whose upstream messages are streamed to the client before its answer.
    // `rec`: the caller's, which outlives the call (the answer goes back through it).
    boost::asio::awaitable<std::optional<transport::http_reply>>
    streamed(boost::beast::tcp_stream& stream, const transport::http_request& req,
             protocol::message msg, request_context& rec);
    // A 2026-07-28 client's named call: run on its own, so it can be parked (input_required).
    boost::asio::awaitable<std::optional<transport::http_reply>>
    parked(boost::beast::tcp_stream& stream, const transport::http_request& req,
           protocol::message msg, request_context rec);
    // The client's retry of a parked call: its answers go upstream; nullopt when its
    // requestState names no parked call (it is then an upstream's own requestState).
    boost::asio::awaitable<std::optional<std::optional<transport::http_reply>>>
    resume_parked(boost::beast::tcp_stream& stream, const transport::http_request& req,
                  const protocol::message& msg, request_context& rec);

private:
    // Stages 4-9 of a named call and its audit, started; ready when every stage decided at once.
    // `pausing`: a waiting stage is handed back for the caller to await (chain::run_pausing).
    pipeline::step start(protocol::message msg, request_context& rec, bool pausing);
    // The call's answer as it goes on the wire, once its stages ran.
    std::string answer_text(request_context& rec);
    // Both in one coroutine, for a call that runs on its own (parked).
    boost::asio::awaitable<std::string> run(protocol::message msg, request_context& rec);
    // A retry naming a call this instance does not hold: resumed from the fleet's record of
    // it, when there is one.
    boost::asio::awaitable<std::optional<std::optional<transport::http_reply>>>
    resume_elsewhere(boost::beast::tcp_stream& stream, const transport::http_request& req,
                     const protocol::message& msg, request_context& rec, const std::string& token,
                     const parked_fleet& fleet);
    // A retry refused (another caller's, or another request's): the call stays parked.
    transport::http_reply refused_retry(request_context& rec, parked_inputs::claim::kind what);

    pipeline::chain& stages_;
    upstream_traffic& news_;
    parked_inputs& inputs_;
    call_stream_services& services_;
};

} // namespace gate::gateway
