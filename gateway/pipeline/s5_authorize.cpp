// Stage 5: authorize. Without a policy section authorization is not enforced
// (docs/configuration.md). With one, every named invocation the spec gates (tools/call,
// prompts/get, resources/read, resources/subscribe, and completion/complete behind the prompt
// or resource it completes, and in passthrough mode every method gate forwards without
// knowing it) is decided by the snapshot's compiled policy for the caller:
// denied is -32042 with outcome `denied`; the decision and the granting rule go to audit.
// Lists are filtered by the same policy where they are cut (actors/federation/federation).
// Decisions are remembered per invocation for the snapshot's policy (policy/policy_memo).
// What the rules allow, policy.decisionHook may still deny (gateway/pipeline/hook_check): it is
// asked last, and never about what the rules deny.
#include "gateway/pipeline/s5_authorize.hpp"

#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/hook_check.hpp"
#include "policy/policy_memo.hpp"
#include "policy/subjects_select.hpp"
#include "protocol/gateway_error.hpp"
#include "protocol/modern_request.hpp"
#include "protocol/oauth_scope.hpp"

#include <array>
#include <span>

namespace gate::gateway::pipeline {

namespace {

namespace json = boost::json;

std::string_view string_at(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// What policy decides for one invocation: the methods whose grants cover it and the item's
// name as the upstream knows it. Nothing for methods the policy does not gate.
struct gated {
    std::array<std::string_view, 2> covering; // the method itself, and what implies it
    std::size_t count;
    std::string_view name;
    std::span<const std::string_view> methods() const { return {covering.data(), count}; }
};

std::optional<gated> gate_of(std::string_view method, const json::object& params) {
    static constexpr std::string_view call = "tools/call", get = "prompts/get",
                                      read = "resources/read", subscribe = "resources/subscribe",
                                      complete = "completion/complete";
    if (method == call)
        return gated{{call}, 1, string_at(params, "name")};
    if (method == get)
        return gated{{get}, 1, string_at(params, "name")};
    if (method == read)
        return gated{{read}, 1, string_at(params, "uri")};
    if (method == subscribe)
        return gated{{subscribe, read}, 2, string_at(params, "uri")};
    if (method == complete) {
        const auto* ref = params.if_contains("ref");
        const auto* r = ref ? ref->if_object() : nullptr;
        if (!r)
            return std::nullopt;
        if (string_at(*r, "type") == "ref/prompt")
            return gated{{complete, get}, 2, string_at(*r, "name")};
        return gated{{complete, read}, 2, string_at(*r, "uri")};
    }
    if (method == "resources/unsubscribe")
        return std::nullopt; // undoes what was allowed; invokes nothing
    // Any other routed method is one passthrough forwards because gate does not know it (an
    // extension's, a newer revision's): an invocation with no name, which a grant covers
    // only by listing the method or every method (docs/security.md).
    return gated{{method}, 1, {}};
}

// The invocation a request is, for the policy: its arguments where a call has them, the
// tool's hints for a tool. With short aliases (routing.maxNameLength) a long name has two
// spellings a client may call it by, the alias and the full namespaced name: rules see both,
// whichever was sent (`other` keeps the one that was not).
policy::invocation invocation_of(const request_context& ctx, std::string_view server,
                                 const gated& g, std::string& other) {
    policy::invocation what{server, g.methods(), g.name,
                            ctx.name ? std::string_view(*ctx.name) : ""};
    const auto& codec = ctx.view->snap->codec;
    if (codec.max_length() > 0 && (ctx.method == "tools/call" || ctx.method == "prompts/get")) {
        auto full = codec.encode(ctx.routed.target->upstream, g.name);
        other = what.client_name == full ? codec.client_name(ctx.routed.target->upstream, g.name)
                                         : std::move(full);
        what.other_name = other;
    }
    if (ctx.method == "tools/call" || ctx.method == "prompts/get") {
        const auto* a = ctx.routed.target->params.if_contains("arguments");
        what.arguments = a ? a->if_object() : nullptr;
    }
    if (ctx.method == "tools/call")
        what.hints = ctx.routed.tool_hints.value_or(protocol::tool_hints{});
    return what;
}

// The token's scopes that are scope tokens (a quote would end the challenge's parameter), then
// the needed ones it lacks.
std::vector<std::string> with_held_scopes(const principal& p,
                                          const std::vector<std::string>& needed) {
    auto all = held_scopes(p);
    std::erase_if(all, [](const std::string& s) { return !protocol::is_scope_token(s); });
    for (const auto& s : needed)
        if (std::find(all.begin(), all.end(), s) == all.end())
            all.push_back(s);
    return all;
}

std::string joined(const std::vector<std::string>& scopes) {
    std::string out;
    for (const auto& s : scopes)
        out += (out.empty() ? "" : " ") + s;
    return out;
}

// The invocation in words, for a refusal's text.
std::string invocation_text(const request_context& ctx, const std::string& server,
                            std::string_view name) {
    auto item = ctx.name.value_or(std::string(name));
    return ctx.method + (item.empty() ? "" : " of " + item) + " on " + server +
           (ctx.who.caller ? " for " + ctx.who.caller->subject : "");
}

// Whether the call may be answered with a task: the client asked for one (`task`), or, in
// 2026-07-28, declared the tasks extension.
bool may_become_task(const request_context& ctx) {
    if (ctx.routed.target->params.contains("task"))
        return true;
    const auto* ext = ctx.client.modern_capabilities.if_contains("extensions");
    return ext && ext->is_object() && ext->get_object().contains(protocol::tasks_extension);
}

// The call's arguments, when it has them as an object.
const json::object* arguments_of(const request_context& ctx) {
    if (ctx.method != "tools/call" && ctx.method != "prompts/get")
        return nullptr;
    const auto* a = ctx.routed.target->params.if_contains("arguments");
    return a ? a->if_object() : nullptr;
}

class authorize final : public stage {
public:
    authorize(std::string resource_metadata, hook_asker* hooks)
        : resource_metadata_(std::move(resource_metadata)), hooks_(hooks) {}
    gateway::stage id() const override { return gateway::stage::authorize; }
    step run(request_context& ctx) override {
        const auto& policy = ctx.view->snap->policy;
        if (!policy || !ctx.routed.target)
            return verdict::proceed;
        auto g = gate_of(ctx.method, ctx.routed.target->params);
        if (!g) {
            if (ctx.method != "completion/complete")
                return verdict::proceed;
            // A completion names what it completes: without it there is nothing to decide.
            refuse(ctx, gateway_error::invalid_params,
                   {"completion/complete needs ref, an object naming a prompt or a resource"});
            return verdict::answered;
        }
        const auto& server = ctx.view->snap->upstream(ctx.routed.target->upstream).id;
        if (policy->reads_arguments() && !arguments_readable(ctx))
            return verdict::answered;
        std::string other;
        auto d = memo_.decide(policy, ctx.who.caller ? &*ctx.who.caller : nullptr,
                              invocation_of(ctx, server, *g, other));
        ctx.policy.decision = d.allowed ? "allow" : "deny";
        ctx.policy.rule_id = d.rule_id;
        if (d.allowed)
            return after_rules(ctx, server, g->name);
        auto what = invocation_text(ctx, server, g->name);
        if (!d.needed_scopes.empty())
            return step_up(ctx, what, d);
        if (d.by == policy::decided_by::deny_entry)
            what += " (rule " + *d.rule_id + " denies it)";
        refuse(ctx, gateway_error::policy_denied, {what});
        return verdict::answered;
    }

private:
    // What the rules allow goes to the decision hook when it is asked before calls; one asked
    // at results gets what stage 8 will describe.
    step after_rules(request_context& ctx, const std::string& server, std::string_view item) {
        const auto& policy_doc = ctx.view->snap->doc->policy;
        const auto* hook =
            policy_doc && policy_doc->decision_hook ? &*policy_doc->decision_hook : nullptr;
        if (!hook || !hooks_)
            return verdict::proceed;
        const auto* arguments = hook->send_arguments ? arguments_of(ctx) : nullptr;
        if (hook->at_result)
            ctx.policy.hook_at_result = request_context::hook_pending{
                std::string(item),
                arguments ? std::optional<json::object>(*arguments) : std::nullopt,
                may_become_task(ctx)};
        if (!hook->at_call)
            return verdict::proceed;
        auto q = hook_question_of(ctx, policy::hook_stage::call, server, item);
        q.arguments = arguments;
        if (arguments)
            q.arguments_source = arguments_source(ctx);
        return consult_hook(*hooks_, *hook, ctx, policy::hook_stage::call, describe(q),
                            invocation_text(ctx, server, item));
    }

    // A call's `arguments` are an object (MCP) where conditions read them: one of another
    // shape is refused rather than decided as a call without arguments.
    static bool arguments_readable(request_context& ctx) {
        if (ctx.method != "tools/call" && ctx.method != "prompts/get")
            return true;
        const auto* a = ctx.routed.target->params.if_contains("arguments");
        if (!a || a->is_object())
            return true;
        refuse(ctx, gateway_error::invalid_params,
               {"arguments must be an object (the policy's conditions read them)"});
        return false;
    }

    // MCP's step-up authorization: 403 with the scopes to ask for in the challenge (RFC 6750
    // 3.1) and the rule's in the JSON-RPC error's data; the rule names them.
    verdict step_up(request_context& ctx, const std::string& what,
                    const policy::policy_decision& d) {
        // A client asks its authorization server for the challenge's scope. The 2025 SDKs ask
        // for it alone, and a token of the rule's scopes alone would lose what the caller could
        // do before (MCP 2025-11-25 recommends naming both); a client that adds the challenge's
        // scopes to those it asked before (SEP-2350, 2026-07-28) asks for the same either way.
        // So every client, of either era, is told the token's scopes and the rule's.
        auto scope = joined(ctx.who.caller ? with_held_scopes(*ctx.who.caller, d.needed_scopes)
                                           : d.needed_scopes);
        ctx.policy.required_scopes = d.needed_scopes;
        boost::json::array scopes;
        for (const auto& s : d.needed_scopes)
            scopes.emplace_back(s);
        error_answer a{gateway_error::insufficient_scope,
                       protocol::gateway_error_text(gateway_error::insufficient_scope,
                                                    {what, d.step_up_rule, scope})};
        a.data = {{"error", "insufficient_scope"}, {"scopes", std::move(scopes)}};
        refuse(ctx, std::move(a));
        std::string challenge = "Bearer error=\"insufficient_scope\", scope=\"" + scope + "\"";
        if (!resource_metadata_.empty())
            challenge += ", resource_metadata=\"" + resource_metadata_ + "\"";
        ctx.answer.refusal_reply->headers.emplace_back("WWW-Authenticate", std::move(challenge));
        return verdict::answered;
    }
    std::string resource_metadata_;
    hook_asker* hooks_;
    policy::policy_memo memo_;
};

} // namespace

std::unique_ptr<stage> make_authorize(std::string resource_metadata, hook_asker* hooks) {
    return std::make_unique<authorize>(std::move(resource_metadata), hooks);
}

} // namespace gate::gateway::pipeline
