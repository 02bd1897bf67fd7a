// An answer on its way back to the client, as the stages after the proxy make it: an
// upstream's answer passed on under the client's id, an upstream failure refused, the audit
// outcome settled from the answer, a 2026-07-28 client's result amended, a minted task found.
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "protocol/gateway_error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway {

// The HTTP answer of a request the stages answered: its refusal, or its JSON-RPC answer (the
// upstream's exact text when it has one) with the headers egress added.
transport::http_reply answer_of(request_context& rec);

// The audit outcome and error text of a finished request, from its JSON-RPC answer (an outcome
// a stage already set is kept).
void settle_outcome(request_context& rec, const boost::json::object& response);

// The gateway error an upstream failure is answered with: -32040 when its own rate limit
// refused the call, -32041 otherwise (protocol/gateway_error.hpp).
protocol::gateway_error error_for(const upstream_failure& f);
// The JSON-RPC answer to a call `upstream` could not serve; records the audit outcome and
// error text on `rec` from the error table.
boost::json::object refuse_upstream(request_context& rec, const boost::json::value& id,
                                    std::string_view upstream, const upstream_failure& f);
// A routed call's reply where egress finds it: the answer to pass on, or the refusal of a
// failure (under rec.upstream's name).
void keep_reply(request_context& rec, upstream_reply reply);

// What the object pass_on returns is for: the request's answer to its client (egress, task
// answers), which for a client before 2026-07-28 is sent as rec.answer.verbatim, so only its
// outcome is read and the result need not be parsed, while a 2026-07-28 client's result is amended
// and read whole; or `whole`, for a caller that reads the object itself (server/discover
// builds its result from an initialize answer).
enum class answer_read { client_answer, whole };

// An upstream's answer for the client: the exact text with only the id replaced goes on the
// wire (rec.answer.verbatim); the object returned, under the client's id, is what `read` says.
boost::json::object pass_on(upstream_message answer, const boost::json::value& id,
                            request_context& rec, answer_read read = answer_read::whole);

// A result for a 2026-07-28 client carries `resultType`; an earlier upstream's result gets
// "complete" (what its absence means), added to its text too.
void complete_for_modern_client(boost::json::object& response, request_context& rec);
// Member `key` added to the result in the answer's text (rec.answer.verbatim), where there is one;
// the caller adds it to rec.answer.response. Where the text cannot take it, the object is sent.
void add_to_result(request_context& rec, std::string_view key, std::string_view value_text);

// The id of the task an upstream's answer mints (2025-11-25's `result.task.taskId`, or a
// 2026-07-28 CreateTaskResult's `taskId`), which egress pins to the upstream before the
// client hears of it; nullopt for any other answer.
std::optional<std::string> minted_task_id(const upstream_message& answer);

} // namespace gate::gateway
