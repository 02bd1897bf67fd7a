// Stage 5: authorize. Without a policy section authorization is not enforced
// (docs/configuration.md). With one, every named invocation the spec gates (tools/call,
// prompts/get, resources/read, resources/subscribe, and completion/complete behind the prompt
// or resource it completes, and in passthrough mode every method gate forwards without
// knowing it) is decided by the snapshot's compiled policy for the caller:
// denied is -32042 with outcome `denied`; the decision and the granting rule go to audit.
// Lists are filtered by the same policy where they are cut (actors/federation/federation).
// Decisions are remembered per invocation for the snapshot's policy (actors/policy/policy_memo).
#include "gateway/pipeline/s5_authorize.hpp"

#include "actors/policy/policy_memo.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/gateway_error.hpp"

#include <array>
#include <span>

namespace gate::transport::pipeline {

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

class authorize final : public stage {
public:
    transport::stage id() const override { return transport::stage::authorize; }
    step run(request_context& ctx) override {
        const auto& policy = ctx.view->snap->policy;
        if (!policy || !ctx.target)
            return verdict::proceed;
        auto g = gate_of(ctx.method, ctx.target->params);
        if (!g)
            return verdict::proceed;
        const auto& server = ctx.view->snap->upstream(ctx.target->upstream).id;
        auto d = memo_.decide(policy, ctx.caller ? &*ctx.caller : nullptr, server, g->methods(),
                              g->name, ctx.name.value_or(""));
        ctx.decision = d.allowed ? "allow" : "deny";
        ctx.rule_id = d.rule_id;
        if (d.allowed)
            return verdict::proceed;
        auto item = ctx.name.value_or(std::string(g->name));
        refuse(ctx, gateway_error::policy_denied,
               {ctx.method + (item.empty() ? "" : " of " + item) + " on " + server +
                (ctx.caller ? " for " + ctx.caller->subject : "")});
        return verdict::answered;
    }

private:
    policy_memo memo_;
};

} // namespace

std::unique_ptr<stage> make_authorize() {
    return std::make_unique<authorize>();
}

} // namespace gate::transport::pipeline
