#include "gateway/pipeline/input_requests_check.hpp"

#include "gateway/auth/decision_hook_client.hpp"
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/hook_check.hpp"

#include <cstring>

namespace gate::transport::pipeline {

namespace json = boost::json;

namespace {

// The only requests the revision lets answer input_required.
bool may_ask_input(std::string_view method) {
    return method == "tools/call" || method == "prompts/get" || method == "resources/read";
}

std::string_view method_of(const json::value& request) {
    const auto* o = request.if_object();
    const auto* m = o ? o->if_contains("method") : nullptr;
    return m && m->is_string() ? std::string_view(m->get_string()) : std::string_view();
}

// The policy's rules for server-initiated requests on one input request: false (ctx answered)
// when they refuse it.
bool rules_admit(request_context& ctx, std::string_view server, std::string_view method) {
    const auto& policy = ctx.view->snap->policy;
    if (!policy)
        return true;
    auto d = policy->decide_server_request(ctx.caller.get(), server, method);
    if (d.allowed)
        return true;
    refuse(ctx, gateway_error::server_request_denied, {method, server});
    ctx.decision = "deny";
    return false;
}

} // namespace

bool judges_input_requests(const request_context& ctx, const hook_asker* hooks) {
    if (!ctx.upstream_answer || !ctx.target || !may_ask_input(ctx.method))
        return false;
    const auto& snap = *ctx.view->snap;
    if (!snap.policy && !(hooks && hook_asked_at(snap.doc->policy, hook_stage::server_request)))
        return false;
    // memmem first: every call's answer passes here, few ask for input.
    const auto& raw = ctx.upstream_answer->raw();
    constexpr std::string_view key = "\"inputRequests\"";
    if (::memmem(raw.data(), raw.size(), key.data(), key.size()) == nullptr)
        return false;
    auto type = ctx.upstream_answer->value_at({"result", "resultType"});
    return type && type->is_string() && type->get_string() == "input_required";
}

boost::asio::awaitable<verdict> judge_input_requests(request_context& ctx, hook_asker* hooks) {
    const auto& snap = *ctx.view->snap;
    const auto& server = snap.upstream(ctx.target->upstream).id;
    auto requests = ctx.upstream_answer->value_at({"result", "inputRequests"});
    const auto* asked = requests ? requests->if_object() : nullptr;
    if (!asked) {
        refuse(ctx, gateway_error::upstream_failed,
               {server, "its input_required answer has no inputRequests object"});
        co_return verdict::answered;
    }
    const auto* hook =
        hooks ? hook_asked_at(snap.doc->policy, hook_stage::server_request) : nullptr;
    for (const auto& [key, request] : *asked) {
        auto method = method_of(request);
        if (method.empty()) {
            refuse(ctx, gateway_error::upstream_failed,
                   {server, "its input request \"" + std::string(key) + "\" names no method"});
            co_return verdict::answered;
        }
        if (!rules_admit(ctx, server, method))
            co_return verdict::answered;
        if (!hook)
            continue;
        hook_question q = hook_question_of(ctx, hook_stage::server_request, server, "");
        // As on every path of a server request (docs/decision-hook.md): no item, no tenant.
        q.name = {};
        q.tenant = std::nullopt;
        q.method = method;
        q.rule = std::nullopt;
        const auto* params = request.get_object().if_contains("params");
        if (hook->send_arguments && params && params->is_object())
            q.arguments = &params->get_object();
        auto what = std::string(method) + " from upstream " + server + " to this client";
        if (co_await consult_hook(*hooks, *hook, ctx, hook_stage::server_request, describe(q),
                                  std::move(what)) == verdict::answered)
            co_return verdict::answered;
    }
    co_return verdict::proceed;
}

} // namespace gate::transport::pipeline
