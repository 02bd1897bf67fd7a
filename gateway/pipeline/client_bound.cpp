#include "gateway/pipeline/client_bound.hpp"

#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/decision_hook_client.hpp"
#include "gateway/pipeline/hook_check.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_splice.hpp"

#include <algorithm>
#include <variant>

namespace gate::gateway::pipeline {

namespace json = boost::json;

namespace {

// The only requests the revision lets answer input_required.
bool may_ask_input(std::string_view method) {
    return method == "tools/call" || method == "prompts/get" || method == "resources/read";
}

std::string_view input_method_of(const json::value& request) {
    const auto* o = request.if_object();
    const auto* m = o ? o->if_contains("method") : nullptr;
    return m && m->is_string() ? std::string_view(m->get_string()) : std::string_view();
}

// The policy's rules for server-initiated requests on one input request: false (ctx answered)
// when they refuse it.
bool input_rules_admit(request_context& ctx, std::string_view server, std::string_view method) {
    if (!server_request_refused(*ctx.view->snap, ctx.who.caller.get(), server, method))
        return true;
    refuse(ctx, gateway_error::server_request_denied, {method, server});
    ctx.policy.decision = "deny";
    return false;
}

bool names_icons(const json::value& v) {
    return v.is_object() && v.get_object().contains("icons");
}

// A call's content blocks that name icons.
bool call_link_icons(icon_rewriter& icons, const actors::snapshot& snap, std::size_t upstream,
                     std::string_view what, json::object& result) {
    auto* c = result.if_contains("content");
    auto* content = c ? c->if_array() : nullptr;
    if (!content || std::none_of(content->begin(), content->end(), names_icons))
        return false;
    icons.rewrite_icons(snap, upstream, what, *content);
    return true;
}

// A prompt's messages each hold one content block: those that name icons are rewritten
// together.
bool prompt_link_icons(icon_rewriter& icons, const actors::snapshot& snap, std::size_t upstream,
                       std::string_view what, json::object& result) {
    auto* m = result.if_contains("messages");
    auto* messages = m ? m->if_array() : nullptr;
    if (!messages)
        return false;
    std::vector<json::value*> linked;
    json::array blocks;
    for (auto& message : *messages) {
        auto* msg = message.if_object();
        auto* content = msg ? msg->if_contains("content") : nullptr;
        if (content && names_icons(*content)) {
            linked.push_back(content);
            blocks.push_back(*content);
        }
    }
    if (linked.empty())
        return false;
    icons.rewrite_icons(snap, upstream, what, blocks);
    for (std::size_t i = 0; i < linked.size(); ++i)
        *linked[i] = std::move(blocks[i]);
    return true;
}

// A result of an upstream the federation no longer has (a reload removed it while its task
// ran): no origin is known to check its icons against, so none is kept.
bool strip_link_icons(json::object& result) {
    auto* c = result.if_contains("content");
    auto* content = c ? c->if_array() : nullptr;
    if (!content)
        return false;
    bool stripped = false;
    for (auto& block : *content)
        if (auto* o = block.if_object())
            stripped = o->erase("icons") > 0 || stripped;
    return stripped;
}

} // namespace

bool client_bound::links_icons(const actors::snapshot& snap, std::string_view text) const {
    return icons_ && !snap.codec.passthrough() && protocol::may_name(text, "icons");
}

bool client_bound::link_icons(const actors::snapshot& snap, std::size_t upstream,
                              std::string_view what, linked shape, json::object& result) const {
    if (!icons_)
        return false;
    if (upstream >= snap.size())
        return shape == linked::call && strip_link_icons(result);
    return shape == linked::call ? call_link_icons(*icons_, snap, upstream, what, result)
                                 : prompt_link_icons(*icons_, snap, upstream, what, result);
}

bool client_bound::link_icons(const actors::snapshot& snap, const std::string& upstream_id,
                              std::string_view what, json::object& result) const {
    auto at = snap.upstream_by_id.find(upstream_id);
    auto index = at == snap.upstream_by_id.end() ? snap.size() : at->second; // gone: no icons
    return link_icons(snap, index, what, linked::call, result);
}

void write_again(std::string& text, const json::object& message) {
    std::string out;
    protocol::write_preserving(message, text, out);
    text = std::move(out);
}

const config::decision_hook* client_bound::result_hook(const request_context& ctx) const {
    return hooks_ ? hook_asked_at(ctx.view->snap->doc->policy, policy::hook_stage::result)
                  : nullptr;
}

boost::asio::awaitable<verdict>
client_bound::judge_result(request_context& ctx, const json::object& answer,
                           std::string_view server, std::string_view upstream_name,
                           std::string what, std::string_view answer_text) {
    const auto* hook = result_hook(ctx);
    if (!hook)
        co_return verdict::proceed;
    auto q = hook_question_of(ctx, policy::hook_stage::result, server, upstream_name);
    if (ctx.policy.hook_at_result && ctx.policy.hook_at_result->arguments) {
        q.arguments = &*ctx.policy.hook_at_result->arguments;
        q.arguments_source = arguments_source(ctx);
    }
    describe_answer(q, answer, hook->send_result, answer_text);
    co_return co_await consult_hook(*hooks_, *hook, ctx, policy::hook_stage::result, describe(q),
                                    std::move(what));
}

bool client_bound::judges_input(const request_context& ctx) const {
    const auto& snap = *ctx.view->snap;
    return snap.policy || server_request_hook(snap, hooks_);
}

bool client_bound::answer_asks_input(const request_context& ctx) const {
    if (!ctx.proxied.upstream_answer || !ctx.routed.target || !may_ask_input(ctx.method) ||
        !judges_input(ctx))
        return false;
    // A search first: every call's answer passes here, few ask for input. It sees the key
    // however it is spelled (escapes too): the client reads it as a parser does.
    if (!protocol::may_name(ctx.proxied.upstream_answer->raw(), "inputRequests"))
        return false;
    auto type = ctx.proxied.upstream_answer->value_at({"result", "resultType"});
    return type && type->is_string() && type->get_string() == "input_required";
}

boost::asio::awaitable<verdict> client_bound::judge_input_requests(request_context& ctx,
                                                                   const json::value* requests,
                                                                   std::string_view server,
                                                                   const json::object* only) {
    const auto* asked = requests ? requests->if_object() : nullptr;
    if (!asked) {
        refuse(ctx, gateway_error::upstream_failed,
               {server, "its input_required answer has no inputRequests object"});
        co_return verdict::answered;
    }
    // An answer to a key the task does not ask now was never judged: whatever it answers, the
    // client was not shown it through gate, so it is not sent on.
    for (const auto& answered : only ? *only : json::object()) {
        if (!asked->contains(answered.key())) {
            refuse(ctx, gateway_error::invalid_params,
                   {"inputResponses answers \"" + std::string(answered.key()) +
                    "\", which the task does not ask now"});
            co_return verdict::answered;
        }
    }
    const auto* hook = server_request_hook(*ctx.view->snap, hooks_);
    for (const auto& [key, request] : *asked) {
        if (only && !only->contains(key))
            continue;
        auto method = input_method_of(request);
        if (method.empty()) {
            refuse(ctx, gateway_error::upstream_failed,
                   {server, "its input request \"" + std::string(key) + "\" names no method"});
            co_return verdict::answered;
        }
        if (!input_rules_admit(ctx, server, method))
            co_return verdict::answered;
        if (!hook)
            continue;
        auto q = server_request_question(ctx.who.caller.get(), server, request.get_object(), *hook);
        auto what =
            std::string(method) + " from upstream " + std::string(server) + " to this client";
        if (co_await consult_hook(*hooks_, *hook, ctx, policy::hook_stage::server_request,
                                  describe(q), std::move(what)) == verdict::answered)
            co_return verdict::answered;
    }
    co_return verdict::proceed;
}

boost::asio::awaitable<verdict> client_bound::judge_task(request_context& ctx,
                                                         const json::object& task,
                                                         const std::string& task_id,
                                                         std::string_view server) {
    // Both parts, each on its own: a task that carries a result beside input requests must not
    // slip its requests past the serverRequest checks under the result's verdict.
    if (const auto* inline_result = task.if_contains("result")) {
        if (!inline_result->is_object()) {
            refuse(ctx, gateway_error::upstream_failed,
                   {server, "its task " + task_id + " carries a result that is not an object"});
            co_return verdict::answered;
        }
        auto what = "the result of task " + task_id + " on " + std::string(server) +
                    (ctx.who.caller ? " for " + ctx.who.caller->subject : "");
        if (co_await judge_result(ctx, task, server, task_id, std::move(what)) == verdict::answered)
            co_return verdict::answered;
    }
    if (const auto* asks = task.if_contains("inputRequests"); asks && judges_input(ctx))
        co_return co_await judge_input_requests(ctx, asks, server);
    co_return verdict::proceed;
}

std::optional<std::string> server_request_refused(const actors::snapshot& snap,
                                                  const principal* who, std::string_view server,
                                                  std::string_view request_method) {
    if (!snap.policy || snap.policy->decide_server_request(who, server, request_method).allowed)
        return std::nullopt;
    return protocol::gateway_error_text(gateway_error::server_request_denied,
                                        {request_method, server});
}

const config::decision_hook* server_request_hook(const actors::snapshot& snap,
                                                 const hook_asker* hooks) {
    return hooks ? hook_asked_at(snap.doc->policy, policy::hook_stage::server_request) : nullptr;
}

request_context judged_now(const request_context& asker,
                           std::shared_ptr<const federation_view> now) {
    request_context judged;
    judged.admission.start = std::chrono::steady_clock::now();
    judged.view = std::move(now);
    judged.who.caller = asker.who.caller;
    judged.tracing.traceparent = asker.tracing.traceparent;
    judged.client.modern = asker.client.modern;
    // A tenant's place is its index in one snapshot's tenants: placed again by the new ones,
    // as stage 2 would place the asker's next request (two tenants selecting it: none).
    const auto& tenants = judged.view->snap->tenants;
    if (!tenants || !judged.who.caller)
        return judged;
    auto placed = tenants->resolve(*judged.who.caller);
    if (auto* i = std::get_if<std::size_t>(&placed)) {
        judged.who.tenant = tenants->tenant(*i).id;
        judged.who.tenant_index = *i;
    }
    return judged;
}

policy::hook_question server_request_question(const principal* who, std::string_view server,
                                              const json::object& request,
                                              const config::decision_hook& hook) {
    // No item, no tenant, no rule (docs/decision-hook.md): an upstream's request is no
    // client request's work.
    policy::hook_question q;
    q.stage = policy::hook_stage::server_request;
    q.who = who;
    if (const auto* m = request.if_contains("method"); m && m->is_string())
        q.method = m->get_string();
    q.upstream = server;
    const auto* params = request.if_contains("params");
    if (hook.send_arguments && params && params->is_object())
        q.arguments = &params->get_object();
    return q;
}

json::object refused_task(const json::object& task, const json::object& refused) {
    auto failed = task;
    failed.erase("result");
    failed.erase("inputRequests");
    failed["status"] = "failed";
    if (const auto* error = refused.if_contains("error"))
        failed["error"] = *error;
    return failed;
}

} // namespace gate::gateway::pipeline
