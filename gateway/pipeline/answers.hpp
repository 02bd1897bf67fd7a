// The gateway's error answers: every refusal and error gate makes itself is written here, from
// its row of protocol/gateway_error (status, code for the client's era, form, outcome, metric
// label, message). Nothing else in the gateway builds an error answer.
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "protocol/gateway_error.hpp"
#include "transport/http/http_reply.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

namespace gate::gateway {

using protocol::gateway_error;

// The JSON-RPC error object of a json_rpc row under `id`, its text from the row.
boost::json::object error_object(gateway_error e, const boost::json::value& id,
                                 std::initializer_list<std::string_view> args = {},
                                 protocol::client_era era = protocol::client_era::sessions);

// Any row as an HTTP answer with the row's status: a JSON-RPC error under `id` (json_rpc
// rows, `data` beside the message when given), {"error": text} (plain) or
// {"error": code, "error_description": text} (described; the code is the row's name unless
// given).
struct error_answer {
    gateway_error error;
    std::string text;
    boost::json::value id = nullptr;
    std::string_view code = {};
    protocol::client_era era = protocol::client_era::sessions;
    boost::json::object data = {};
};
transport::http_reply error_reply(error_answer a);

// The request answered with a row, as the audit and the metrics will see it: its outcome and
// text; a JSON-RPC row at HTTP 200 becomes the response, any other the refusal reply (an HTTP
// refusal before MCP handling is audited with method `http` and counted under the row's
// label). The answer's id and era are the request's. Returns the text.
const std::string& refuse(request_context& ctx, error_answer a);

// The same, with the text made from the row's message and `args`.
// (No overload takes the text as one std::string: `{text}` would pick it over the
// arguments.)
inline const std::string& refuse(request_context& ctx, gateway_error e,
                                 std::initializer_list<std::string_view> args = {}) {
    return refuse(ctx, error_answer{e, protocol::gateway_error_text(e, args)});
}

// The era whose codes a request's client is answered with.
inline protocol::client_era era_of(const request_context& ctx) {
    return ctx.client.modern ? protocol::client_era::modern : protocol::client_era::sessions;
}

// A JSON-RPC row's answer to `id` for a method that returns the answer rather than setting it
// (lists, tasks, bridging): the outcome and text are set on `ctx` as refuse sets them.
// `refusal_with` takes a text already made from the row (a route's refusal carries one).
boost::json::object refusal_with(request_context& ctx, const boost::json::value& id,
                                 gateway_error e, std::string text);
inline boost::json::object refusal(request_context& ctx, const boost::json::value& id,
                                   gateway_error e,
                                   std::initializer_list<std::string_view> args = {}) {
    return refusal_with(ctx, id, e, protocol::gateway_error_text(e, args));
}

} // namespace gate::gateway
