// Answers on their way back to the client, as the stages after the proxy and the MCP methods
// make them.
#include "gateway/pipeline/client_answer.hpp"

#include "gateway/pipeline/answers.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/json_splice.hpp"

#include <boost/beast/http/status.hpp>
#include <boost/json/serialize.hpp>
#include <cassert>

namespace gate::gateway {

namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

std::optional<std::string> error_text(const json::object& response) {
    auto* err = response.if_contains("error");
    auto* o = err ? err->if_object() : nullptr;
    auto* m = o ? o->if_contains("message") : nullptr;
    if (m && m->is_string())
        return std::string(m->get_string());
    if (err)
        return json::serialize(*err);
    return std::nullopt;
}

} // namespace

static json::object with_id(json::object response, const json::value& id) {
    response["id"] = id;
    return response;
}

// What settles a passed-on answer's outcome, read without parsing its result: the error as
// the upstream wrote it, under the client's id. A result (or anything else) stands in as an
// empty object, which settles as ok and costs nothing to make: the client is sent the
// answer's own text (rec.answer.verbatim), never this object.
static json::object outcome_view(const upstream_message& answer, const json::value& id) {
    auto error = answer.value_at({"error"});
    if (!error)
        return {};
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(*error)}};
}

json::object pass_on(upstream_message answer, const json::value& id, request_context& rec,
                     answer_read read) {
    if (auto spliced = answer.text_with_id(protocol::id_text(id))) {
        rec.answer.verbatim = std::move(*spliced);
        if (read == answer_read::client_answer && !rec.client.modern)
            return outcome_view(answer, id);
    }
    return with_id(answer.take_body(), id);
}

protocol::gateway_error error_for(const upstream_failure& f) {
    using k = upstream_failure::kind;
    switch (f.what) {
    case k::rate_limited:
        return protocol::gateway_error::upstream_rate_limited;
    case k::circuit_open:
        return protocol::gateway_error::upstream_circuit_open;
    case k::connect_error:
        return protocol::gateway_error::upstream_unreachable;
    default:
        return protocol::gateway_error::upstream_failed;
    }
}

json::object refuse_upstream(request_context& rec, const json::value& id, std::string_view upstream,
                             const upstream_failure& f) {
    auto e = error_for(f);
    rec.audit.outcome = protocol::describe(e).audit_outcome;
    rec.audit.error = f.message;
    auto answer = error_object(e, id, {upstream, f.message}, era_of(rec));
    if (f.retry_after.count() > 0) {
        // The retry hint in a form a program can read, beside the one in the message.
        answer["error"].as_object()["data"] = {{"upstream", upstream},
                                               {"retryAfterMs", f.retry_after.count()}};
    }
    return answer;
}

void keep_reply(request_context& rec, upstream_reply reply) {
    if (auto* f = std::get_if<upstream_failure>(&reply))
        rec.answer.response = refuse_upstream(rec, rec.message.id, *rec.upstream, *f);
    else
        rec.proxied.upstream_answer = std::move(std::get<upstream_message>(reply));
}

void settle_outcome(request_context& rec, const json::object& response) {
    // What gate answered itself set its outcome from its row (gateway/pipeline/answers); an
    // answer left with none is an upstream's, passed on: an error there is the call's error.
    if (rec.audit.outcome == protocol::outcome::ok && response.contains("error"))
        rec.audit.outcome = protocol::outcome::error;
    if (!rec.audit.error)
        rec.audit.error = error_text(response);
}

transport::http_reply answer_of(request_context& rec) {
    if (rec.answer.refusal_reply)
        return std::move(*rec.answer.refusal_reply);
    // An empty response stands in for a result passed on verbatim (outcome_view): never sent.
    assert(!rec.answer.verbatim.empty() || !rec.answer.response->empty());
    auto status = static_cast<http::status>(rec.answer.status);
    auto reply = rec.answer.verbatim.empty()
                     ? transport::http_reply::json(status, json::serialize(*rec.answer.response))
                     : transport::http_reply::json(status, std::move(rec.answer.verbatim));
    for (auto& h : rec.answer.headers)
        reply.headers.push_back(std::move(h));
    return reply;
}

void complete_for_modern_client(json::object& response, request_context& rec) {
    auto* r = response.if_contains("result");
    auto* result = r ? r->if_object() : nullptr;
    if (!result || result->contains("resultType"))
        return;
    (*result)["resultType"] = "complete";
    // The upstream's answer goes on as it wrote it, with only this member added.
    add_to_result(rec, "resultType", R"("complete")");
}

void add_to_result(request_context& rec, std::string_view key, std::string_view value_text) {
    if (rec.answer.verbatim.empty())
        return;
    if (auto added = protocol::set_member(rec.answer.verbatim, {"result"}, key, value_text))
        rec.answer.verbatim = std::move(*added);
    else
        rec.answer.verbatim.clear(); // the amended object is written out instead
}

std::optional<std::string> minted_task_id(const upstream_message& answer) {
    // 2025-11-25 nests the task (`result.task.taskId`); the 2026-07-28 tasks extension
    // answers a CreateTaskResult (`resultType: "task"`, `taskId` at the top). Both name
    // "task" (a key, a value); most answers name neither, and are not walked.
    if (!protocol::may_name(answer.raw(), "task"))
        return std::nullopt;
    std::optional<json::value> task_id;
    if (auto task = answer.value_at({"result", "task"}); task && task->is_object()) {
        if (auto* id = task->as_object().if_contains("taskId"))
            task_id = *id;
    } else if (auto type = answer.value_at({"result", "resultType"}); type && *type == "task") {
        task_id = answer.value_at({"result", "taskId"});
    }
    if (!task_id || !task_id->is_string())
        return std::nullopt;
    return std::string(task_id->get_string());
}

} // namespace gate::gateway
