#include "gateway/pipeline/hook_check.hpp"

#include "gateway/pipeline/answers.hpp"
#include "protocol/json_splice.hpp"

namespace gate::gateway::pipeline {

const config::decision_hook* hook_asked_at(const std::optional<config::policy>& policy,
                                           policy::hook_stage stage) {
    if (!policy || !policy->decision_hook)
        return nullptr;
    const auto& hook = *policy->decision_hook;
    bool asked = stage == policy::hook_stage::call     ? hook.at_call
                 : stage == policy::hook_stage::result ? hook.at_result
                                                       : hook.at_server_request;
    return asked ? &hook : nullptr;
}

policy::hook_question hook_question_of(const request_context& ctx, policy::hook_stage stage,
                                       std::string_view server, std::string_view upstream_name) {
    policy::hook_question q;
    q.stage = stage;
    q.who = ctx.who.caller.get();
    if (ctx.who.tenant)
        q.tenant = *ctx.who.tenant;
    q.method = ctx.method;
    q.name = ctx.name ? std::string_view(*ctx.name) : upstream_name;
    q.upstream = server;
    q.upstream_name = upstream_name;
    if (ctx.policy.rule_id)
        q.rule = *ctx.policy.rule_id;
    return q;
}

namespace {

// The text of the top-level member `key` of the object `json` begins with, read by its path: a
// member of that name nested before it (in _meta) is not it, and may spell the same numbers
// otherwise (beyond 2^53 they parse equal), which json_preserve could not tell apart.
std::string_view hook_check_member_text(std::string_view json, std::string_view key) {
    auto span = protocol::find_member(json, {key});
    return span ? json.substr(span->begin, span->end - span->begin) : std::string_view();
}

} // namespace

std::string_view arguments_source(const request_context& ctx) {
    return hook_check_member_text(ctx.message.params_source, "arguments");
}

void describe_answer(policy::hook_question& q, const boost::json::object& answer, bool send_result,
                     std::string_view answer_text) {
    const auto* error = answer.if_contains("error");
    const auto* result = answer.if_contains("result");
    const auto* flagged =
        result && result->is_object() ? result->get_object().if_contains("isError") : nullptr;
    q.is_error = error != nullptr || (flagged && flagged->is_bool() && flagged->get_bool());
    if (!send_result)
        return;
    q.result = error ? error : result;
    q.result_source = hook_check_member_text(answer_text, error ? "error" : "result");
}

boost::asio::awaitable<verdict> consult_hook(hook_asker& asker, const config::decision_hook& hook,
                                             request_context& ctx, policy::hook_stage stage,
                                             std::string description, std::string what) {
    auto said = co_await asker.ask(hook, stage, std::move(description), ctx.tracing.traceparent);
    ctx.policy.hook = said.audit(stage);
    if (said.allowed(hook))
        co_return verdict::proceed;
    if (said.what == hook_answer::said::deny)
        refuse(ctx, gateway_error::hook_denied,
               {what, said.reason.empty() ? std::string_view("no reason given")
                                          : std::string_view(said.reason)});
    else
        refuse(ctx, gateway_error::hook_failed, {what, said.client_error()});
    // ctx.policy.decision stays the policy's own (audit: `decision` and `hook.verdict` side by
    // side).
    co_return verdict::answered;
}

} // namespace gate::gateway::pipeline
