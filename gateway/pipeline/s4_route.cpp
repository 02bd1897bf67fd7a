// Stage 4: route. Named calls resolve the `{namespace}{separator}{name}` prefix (or the owner
// of a resource URI) to exactly one upstream; lists plan which upstreams' cached lists are
// stale; `ping` is answered here; a call of gate's own tools (tool search) plans the tools
// list it is answered from. Task methods find their owner and logging/setLevel reaches
// every session of the client at the proxy stage, where the upstreams are asked.
#include "gateway/pipeline/s4_route.hpp"

#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/tool_search_scope.hpp"
#include "protocol/json_rpc.hpp"

namespace gate::gateway::pipeline {

namespace {

namespace ec = protocol::error_code;

class route_stage final : public stage {
public:
    explicit route_stage(route_services& services) : services_(services) {}
    gateway::stage id() const override { return gateway::stage::route; }
    step run(request_context& ctx) override {
        const auto& m = ctx.method;
        if (m == "ping") {
            ctx.answer.response = protocol::make_result(ctx.message.id, boost::json::object{});
            return verdict::answered;
        }
        if (m == "initialize" || m == "logging/setLevel" || m.starts_with("tasks/"))
            return verdict::proceed;
        if (auto kind = protocol::list_kind_of(m))
            return plan(ctx, *kind);
        if (auto own = gate_tool_called(ctx))
            return route_gate_tool(ctx, *own);
        if (auto by_name = services_.route_by_name(m, ctx.message.id, ctx.message.params, ctx))
            return settle(ctx, std::move(*by_name));
        return resolve(ctx);
    }

private:
    boost::asio::awaitable<verdict> plan(request_context& ctx, protocol::list_kind kind) {
        auto plan = co_await services_.plan_list(kind, ctx);
        if (!plan) {
            refuse(ctx, gateway_error::internal_error, {"router unavailable"});
            co_return verdict::answered;
        }
        ctx.routed.plan = std::move(*plan);
        co_return verdict::proceed;
    }

    // A tools/call of gate's own tools, where tool search is on for the caller (before any
    // upstream's names: a namespace cannot spell them, config/parse_tool_search.cpp).
    static std::optional<protocol::gate_tool> gate_tool_called(const request_context& ctx) {
        if (ctx.method != "tools/call" || !searches_tools(ctx))
            return std::nullopt;
        const auto* name = ctx.message.params.if_contains("name");
        return name && name->is_string() ? protocol::gate_tool_named(name->get_string())
                                         : std::nullopt;
    }

    // It is answered from the tools list the caller is offered: planned and fetched as a
    // tools/list's, through the same guards.
    step route_gate_tool(request_context& ctx, protocol::gate_tool tool) {
        ctx.name = std::string(tool == protocol::gate_tool::search ? protocol::search_tools_name
                                                                   : protocol::select_tools_name);
        if (tool == protocol::gate_tool::select && ctx.client.modern) {
            ctx.answer.response = protocol::make_result(
                ctx.message.id,
                protocol::gate_tool_error("gate_select_tools keeps a selection with a session, "
                                          "and this request has none: call the tools "
                                          "gate_search_tools found by their names"));
            return verdict::answered;
        }
        // Arguments a model got wrong are its to mend, answered before any upstream is asked.
        if (auto wrong = protocol::argument_problem(tool, ctx.message.params)) {
            ctx.answer.response =
                protocol::make_result(ctx.message.id, protocol::gate_tool_error(*wrong));
            return verdict::answered;
        }
        ctx.routed.gate_tool = tool;
        return plan(ctx, protocol::list_kind::tools);
    }

    // A URI, whose owner the resource router knows.
    boost::asio::awaitable<verdict> resolve(request_context& ctx) {
        co_return settle(ctx, co_await services_.route_named(ctx.method, ctx.message.id,
                                                             std::move(ctx.message.params), ctx));
    }

    verdict settle(request_context& ctx, routing decided) {
        if (auto* refused = std::get_if<boost::json::object>(&decided)) {
            ctx.answer.response = std::move(*refused);
            return verdict::answered;
        }
        auto& target = std::get<actors::route>(decided);
        if (auto hidden = hidden_from_tenant(ctx, target)) {
            ctx.name = target.name.empty() ? std::nullopt : std::optional(target.name);
            ctx.answer.response = std::move(*hidden);
            return verdict::answered;
        }
        ctx.name = target.name.empty() ? std::nullopt : std::optional(target.name);
        ctx.upstream = ctx.view->snap->upstream(target.upstream).id;
        ctx.routed.target = std::move(target);
        return verdict::proceed;
    }

    // An upstream the caller's tenant does not see answers like one that is not configured
    // (tenants[].upstreams is applied before policy): a name's namespace is unknown (-32043),
    // a URI is owned by no upstream; either echoes the spelling the client sent.
    static std::optional<boost::json::object> hidden_from_tenant(const request_context& ctx,
                                                                 const actors::route& target) {
        if (tenant_sees(ctx, target.upstream))
            return std::nullopt;
        const auto* ref = target.params.if_contains("ref");
        bool named = ctx.method == "tools/call" || ctx.method == "prompts/get" ||
                     (ref && ref->is_object() && ref->get_object().contains("name"));
        auto sent = route_sent_spelling(*ctx.view->snap, ctx.method, target);
        auto e = named ? actors::unknown_name(sent) : actors::unknown_uri(sent);
        return protocol::make_gateway_error(e.error, ctx.message.id, e.message);
    }

    route_services& services_;
};

} // namespace

std::unique_ptr<stage> make_route(route_services& services) {
    return std::make_unique<route_stage>(services);
}

} // namespace gate::gateway::pipeline
