// Stage 8: egress. An upstream's answer goes back byte for byte with only its id replaced (a
// minted task pinned to its upstream first); a list is merged, namespaced and paged; a new
// session is opened for an accepted initialize; a 2026-07-28 client's result says what it is
// and how long it may be cached. The audit outcome is settled from the answer. A decision hook
// asked at results (policy.decisionHook stages "result") may withhold an upstream's answer.
#include "gateway/pipeline/s8_egress.hpp"

#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/client_bound.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/json_splice.hpp"
#include "protocol/modern_request.hpp"
#include "protocol/ui_uri.hpp"

namespace gate::gateway::pipeline {

namespace {

namespace ec = protocol::error_code;

class egress final : public stage {
public:
    egress(egress_services services, hook_asker* hooks)
        : services_(services), hooks_(hooks), judge_(hooks, &services.icons) {}
    gateway::stage id() const override { return gateway::stage::egress; }
    step run(request_context& ctx) override {
        const auto& m = ctx.method;
        auto kind = protocol::list_kind_of(m);
        bool answered_upstream = !ctx.answer.response && ctx.proxied.upstream_answer;
        auto minted = answered_upstream && m == "tools/call"
                          ? minted_task_id(*ctx.proxied.upstream_answer)
                          : std::nullopt;
        // Waits only to pin a minted task, merge a list, open a session, ask the hook or judge
        // what the answer asks the client.
        bool input = answered_upstream && judge_.answer_asks_input(ctx);
        if (minted ||
            (!ctx.answer.response && !ctx.proxied.upstream_answer && ctx.routed.plan &&
             (kind || ctx.routed.gate_tool)) ||
            (m == "initialize" && !ctx.client.modern) ||
            (answered_upstream && ctx.policy.hook_at_result && hooks_) || input)
            return finish_waiting(ctx, std::move(minted), input);
        if (answered_upstream)
            take_upstream_answer(ctx);
        settle(ctx);
        after_answer(ctx, kind.has_value());
        return verdict::proceed;
    }

private:
    // `input`: the answer asks the client for input that is judged first.
    boost::asio::awaitable<verdict> finish_waiting(request_context& ctx,
                                                   std::optional<std::string> minted, bool input) {
        const auto& m = ctx.method;
        auto kind = protocol::list_kind_of(m);
        if (input) { // refused: answered in its place
            auto requests = ctx.proxied.upstream_answer->value_at({"result", "inputRequests"});
            co_await judge_.judge_input_requests(
                ctx, requests ? &*requests : nullptr,
                ctx.view->snap->upstream(ctx.routed.target->upstream).id);
        }
        if (!ctx.answer.response && ctx.proxied.upstream_answer) {
            if (minted)
                co_await services_.tasks.pin_task(ctx, ctx.routed.target->upstream,
                                                  std::move(*minted));
            take_upstream_answer(ctx);
            // A task the client asked for is not the result: its tasks/result is judged
            // (gateway/mcp/task_methods). One it did not ask for is an upstream's answer
            // dressed as a task, and judged as what it is.
            if (ctx.policy.hook_at_result && hooks_ &&
                (!minted || !ctx.policy.hook_at_result->task_asked))
                co_await judge_result(ctx);
        }
        if (!ctx.answer.response && ctx.routed.plan && ctx.routed.gate_tool)
            ctx.answer.response = co_await services_.lists.answer_gate_tool(
                *ctx.routed.gate_tool, *ctx.routed.plan, std::move(ctx.proxied.fetched),
                ctx.message.id, ctx.message.params, ctx);
        else if (!ctx.answer.response && ctx.routed.plan && kind)
            ctx.answer.response = co_await services_.lists.complete_list(
                *kind, *ctx.routed.plan, std::move(ctx.proxied.fetched), ctx.message.id,
                ctx.message.params, ctx);
        settle(ctx);
        if (m == "initialize" && !ctx.client.modern)
            co_await open_session(ctx);
        after_answer(ctx, kind.has_value());
        co_return verdict::proceed;
    }

    // The hook's say on the answer the client is about to get (client_bound): withheld, the
    // refusal in its place, unless allowed. The answer is read as written in ctx.answer.verbatim.
    boost::asio::awaitable<void> judge_result(request_context& ctx) {
        const auto& server = ctx.view->snap->upstream(ctx.routed.target->upstream).id;
        const auto& upstream_name = ctx.policy.hook_at_result->upstream_name;
        auto item = ctx.name.value_or(upstream_name);
        auto what = "the result of " + ctx.method + (item.empty() ? "" : " of " + item) + " on " +
                    server + (ctx.who.caller ? " for " + ctx.who.caller->subject : "");
        co_await judge_.judge_result(ctx, *ctx.answer.response, server, upstream_name,
                                     std::move(what), ctx.answer.verbatim);
    }

    // Whatever the upstream answered, result or error, goes back verbatim.
    void take_upstream_answer(request_context& ctx) {
        // Few answers report usage: a search first spares the rest a walk of the result.
        if (protocol::may_name(ctx.proxied.upstream_answer->raw(), "usage"))
            if (auto usage = ctx.proxied.upstream_answer->value_at({"result", "_meta", "usage"}))
                ctx.audit.usage = usage_text(*ctx.proxied.upstream_answer, *usage);
        // A read of an App's view answers under the URI the client asked for
        // (protocol/ui_uri.hpp): the contents that name the upstream's own are renamed.
        auto ui = read_of_ui(ctx);
        // A call's or a prompt's answer is read whole only when it may name icons (its
        // resource links'), which passthrough never rewrites.
        bool links = (ctx.method == "tools/call" || ctx.method == "prompts/get") &&
                     ctx.routed.target &&
                     judge_.links_icons(*ctx.view->snap, ctx.proxied.upstream_answer->raw());
        // A decision hook asked about the result reads it whole too.
        bool whole = ui || links || (ctx.policy.hook_at_result && hooks_);
        ctx.answer.response = pass_on(std::move(*ctx.proxied.upstream_answer), ctx.message.id, ctx,
                                      whole ? answer_read::whole : answer_read::client_answer);
        if (ui && protocol::restore_read_uris(*ctx.answer.response, ui->uri, *ctx.name) &&
            !ctx.answer.verbatim.empty())
            write_again(ctx.answer.verbatim, *ctx.answer.response);
        if (links)
            link_icons(ctx);
    }

    // The resource links of a call's content, or of a prompt's messages, name icons as list
    // items do: from gate's origin, where a client may fetch them, not the upstream's.
    void link_icons(request_context& ctx) {
        auto* r = ctx.answer.response->if_contains("result");
        auto* result = r ? r->if_object() : nullptr;
        auto shape =
            ctx.method == "tools/call" ? client_bound::linked::call : client_bound::linked::prompt;
        if (result &&
            judge_.link_icons(*ctx.view->snap, ctx.routed.target->upstream, ctx.method, shape,
                              *result) &&
            !ctx.answer.verbatim.empty())
            write_again(ctx.answer.verbatim, *ctx.answer.response);
    }

    // `usage` as the upstream wrote it, on one line, for the audit event: from the answer's
    // text, found only when the answer reports usage (the value_at that found it costs every
    // answer what it did).
    static std::string usage_text(const upstream_message& m, const boost::json::value& usage) {
        auto text = m.text_at({"result", "_meta", "usage"});
        if (!text) // the text alone does not say where (a key with escapes, many members)
            if (auto span = protocol::find_member(m.raw(), {"result", "_meta", "usage"}))
                text = std::string_view(m.raw()).substr(span->begin, span->end - span->begin);
        return protocol::one_line_preserving(usage, text.value_or(std::string_view()));
    }

    // The upstream's own URI of a ui:// read.
    static std::optional<protocol::upstream_ui_uri> read_of_ui(const request_context& ctx) {
        if (ctx.method != "resources/read" || !ctx.name)
            return std::nullopt;
        return protocol::upstream_ui(ctx.view->snap->codec, *ctx.name);
    }

    static void settle(request_context& ctx) {
        if (!ctx.answer.response)
            refuse(ctx, gateway_error::internal_error, {"no answer"});
        settle_outcome(ctx, *ctx.answer.response);
    }

    void after_answer(request_context& ctx, bool list) {
        const auto& m = ctx.method;
        if ((m == "resources/subscribe" || m == "resources/unsubscribe") &&
            ctx.audit.outcome == protocol::outcome::ok && ctx.name) {
            // Updates come under the upstream's own URI (an App's view has another here).
            auto ui = protocol::upstream_ui(ctx.view->snap->codec, *ctx.name);
            services_.subscriptions.record_subscription(ctx, ui ? ui->uri : *ctx.name,
                                                        m == "resources/subscribe");
        }
        if (ctx.client.modern)
            for_modern_client(ctx, list);
    }

    boost::asio::awaitable<void> open_session(request_context& ctx) {
        if (!ctx.answer.response->contains("result"))
            co_return;
        boost::json::object capabilities;
        if (auto* c = ctx.message.params.if_contains("capabilities"); c && c->is_object())
            capabilities = c->get_object();
        // Within the caller's share of the table; a refusal is in ctx (gateway/mcp/sessions).
        auto session = services_.sessions.open_session(ctx, capabilities);
        if (!session)
            co_return;
        // Any instance of a fleet continues it: its record is in the store before the client
        // hears the id.
        co_await services_.fleet.publish_session(*session, ctx.proxied.negotiated_version,
                                                 capabilities, principal_key(ctx.who.caller));
        ctx.answer.headers.emplace_back("Mcp-Session-Id", *session);
    }

    // 2026-07-28 results say what they are; lists also how long they may be cached (the
    // shortest TTL of the upstreams), and only privately: they are filtered per principal. A
    // read of an upstream that said nothing of it (the earlier era) may not be cached at all,
    // and only privately: gate cannot know whether its content is the caller's own.
    void for_modern_client(request_context& ctx, bool list) {
        ctx.answer.status = protocol::modern_answer_status(*ctx.answer.response);
        complete_for_modern_client(*ctx.answer.response, ctx);
        auto* r = ctx.answer.response->if_contains("result");
        if (!r || !r->is_object())
            return;
        if (list) {
            std::int64_t ttl = 0;
            for (std::size_t i = 0; i < ctx.view->snap->size(); ++i) {
                auto t = std::max<std::int64_t>(0, ctx.view->snap->upstream(i).cache_ttl_ms);
                ttl = i == 0 ? t : std::min(ttl, t);
            }
            cacheable_for(ctx, r->as_object(), ttl);
        } else if (ctx.method == "resources/read" && !r->as_object().contains("ttlMs")) {
            cacheable_for(ctx, r->as_object(), 0);
        }
    }

    static void cacheable_for(request_context& ctx, boost::json::object& result, std::int64_t ttl) {
        result["ttlMs"] = ttl;
        result["cacheScope"] = "private";
        add_to_result(ctx, "ttlMs", std::to_string(ttl));
        add_to_result(ctx, "cacheScope", R"("private")");
    }

    egress_services services_;
    hook_asker* hooks_;
    client_bound judge_; // what the client is sent on an upstream's behalf
};

} // namespace

std::unique_ptr<stage> make_egress(egress_services services, hook_asker* hooks) {
    return std::make_unique<egress>(services, hooks);
}

} // namespace gate::gateway::pipeline
