// Asking the decision hook (policy.decisionHook) on a request's behalf, for stages 5 (before
// the call) and 8 (on its result): the question as the configuration has it carry, the say
// recorded for audit, and the refusal answered when the hook, or its failure under
// onError "deny", does not allow.
#pragma once

#include "gateway/pipeline/decision_hook_client.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/step.hpp"
#include "policy/decision_hook.hpp"

#include <boost/asio/awaitable.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway::pipeline {

// The hook `policy` asks at `stage`; null when there is none, or it is not asked there.
const config::decision_hook* hook_asked_at(const std::optional<config::policy>& policy,
                                           policy::hook_stage stage);

// ctx's invocation of `upstream_name` on `server` (the upstream's id): principal, tenant,
// method, the client's name, the rule that allowed it.
policy::hook_question hook_question_of(const request_context& ctx, policy::hook_stage stage,
                                       std::string_view server, std::string_view upstream_name);

// Where ctx's client wrote its call's arguments in its params' text (empty: nowhere found),
// for the hook to read them as written. A view into ctx.message.params_source.
std::string_view arguments_source(const request_context& ctx);

// An answer on `q` (the result stage): whether it is an error (a JSON-RPC error, or a result
// with isError true), and, when `send_result`, its `result` or `error`, read as written in
// `answer_text` (the text `answer` was read from; empty: none). Both outlive `q`.
void describe_answer(policy::hook_question& q, const boost::json::object& answer, bool send_result,
                     std::string_view answer_text = {});

// Asks `asker` the question `description` describes: proceed when allowed; otherwise ctx is
// answered (hook_denied, or hook_failed naming what failed) and the verdict is `answered`.
// `what`: the invocation in words, for the error's text.
boost::asio::awaitable<verdict> consult_hook(hook_asker& asker, const config::decision_hook& hook,
                                             request_context& ctx, policy::hook_stage stage,
                                             std::string description, std::string what);

} // namespace gate::gateway::pipeline
