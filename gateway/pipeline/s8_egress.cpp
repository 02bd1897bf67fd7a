// Stage 8: egress. An upstream's answer goes back byte for byte with only its id replaced (a
// minted task pinned to its upstream first); a list is merged, namespaced and paged; a new
// session is opened for an accepted initialize; a 2026-07-28 client's result says what it is
// and how long it may be cached. The audit outcome is settled from the answer. A decision hook
// asked at results (policy.decisionHook stages "result") may withhold an upstream's answer.
#include "gateway/pipeline/s8_egress.hpp"

#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/hook_check.hpp"
#include "gateway/pipeline/input_requests_check.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/modern_request.hpp"
#include "protocol/ui_uri.hpp"

#include <algorithm>
#include <cstring>

namespace gate::transport::pipeline {

namespace {

namespace ec = protocol::error_code;

class egress final : public stage {
public:
    egress(egress_services& services, hook_asker* hooks) : services_(services), hooks_(hooks) {}
    transport::stage id() const override { return transport::stage::egress; }
    step run(request_context& ctx) override {
        const auto& m = ctx.method;
        auto kind = protocol::list_kind_of(m);
        bool answered_upstream = !ctx.response && ctx.upstream_answer;
        auto minted = answered_upstream && m == "tools/call" ? minted_task_id(*ctx.upstream_answer)
                                                             : std::nullopt;
        // Waits only to pin a minted task, merge a list, open a session, ask the hook or judge
        // what the answer asks the client.
        bool input = answered_upstream && judges_input_requests(ctx, hooks_);
        if (minted || (!ctx.response && !ctx.upstream_answer && ctx.plan && kind) ||
            (m == "initialize" && !ctx.modern) ||
            (answered_upstream && ctx.hook_at_result && hooks_) || input)
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
        if (input)
            co_await judge_input_requests(ctx, hooks_); // refused: answered in its place
        if (!ctx.response && ctx.upstream_answer) {
            if (minted)
                co_await services_.pin_task(ctx, ctx.target->upstream, std::move(*minted));
            take_upstream_answer(ctx);
            // A task the client asked for is not the result: its tasks/result is judged
            // (gateway/mcp/task_methods). One it did not ask for is an upstream's answer
            // dressed as a task, and judged as what it is.
            if (ctx.hook_at_result && hooks_ && (!minted || !ctx.hook_at_result->task_asked))
                co_await judge_result(ctx);
        }
        if (!ctx.response && ctx.plan && kind)
            ctx.response = co_await services_.complete_list(
                *kind, *ctx.plan, std::move(ctx.fetched), ctx.id, ctx.params, ctx);
        settle(ctx);
        if (m == "initialize" && !ctx.modern)
            co_await open_session(ctx);
        after_answer(ctx, kind.has_value());
        co_return verdict::proceed;
    }

    // The hook's say on the answer the client is about to get: withheld (the refusal in its
    // place) unless allowed.
    boost::asio::awaitable<void> judge_result(request_context& ctx) {
        const auto& hook = *ctx.view->snap->doc->policy->decision_hook;
        const auto& server = ctx.view->snap->upstream(ctx.target->upstream).id;
        auto& pending = *ctx.hook_at_result;
        auto q = hook_question_of(ctx, hook_stage::result, server, pending.upstream_name);
        if (pending.arguments)
            q.arguments = &*pending.arguments;
        describe_answer(q, *ctx.response, hook.send_result);
        auto item = ctx.name.value_or(pending.upstream_name);
        auto what = "the result of " + ctx.method + (item.empty() ? "" : " of " + item) + " on " +
                    server + (ctx.caller ? " for " + ctx.caller->subject : "");
        co_await consult_hook(*hooks_, hook, ctx, hook_stage::result, describe(q), std::move(what));
    }

    // Whatever the upstream answered, result or error, goes back verbatim.
    void take_upstream_answer(request_context& ctx) {
        if (auto usage = ctx.upstream_answer->value_at({"result", "_meta", "usage"}))
            ctx.usage = std::move(*usage);
        // A read of an App's view answers under the URI the client asked for
        // (protocol/ui_uri.hpp): the contents that name the upstream's own are renamed.
        auto ui = read_of_ui(ctx);
        // A call's or a prompt's answer is read whole only when it may name icons (its
        // resource links'), which passthrough never rewrites. memmem: a search that stops at
        // every quote of the answer cost hundreds of instructions per call.
        const auto& raw = ctx.upstream_answer->raw();
        constexpr std::string_view icons_key = "\"icons\"";
        bool links =
            (ctx.method == "tools/call" || ctx.method == "prompts/get") && ctx.target &&
            !ctx.view->snap->codec.passthrough() &&
            ::memmem(raw.data(), raw.size(), icons_key.data(), icons_key.size()) != nullptr;
        // A decision hook asked about the result reads it whole too.
        bool whole = ui || links || (ctx.hook_at_result && hooks_);
        ctx.response = pass_on(std::move(*ctx.upstream_answer), ctx.id, ctx,
                               whole ? answer_read::whole : answer_read::client_answer);
        if (ui && protocol::restore_read_uris(*ctx.response, ui->uri, *ctx.name) &&
            !ctx.verbatim.empty()) {
            std::string text;
            protocol::write_preserving(*ctx.response, ctx.verbatim, text);
            ctx.verbatim = std::move(text);
        }
        if (links)
            link_icons(ctx);
    }

    // The resource links of a call's content, or of a prompt's messages, name icons as list
    // items do: from gate's origin, where a client may fetch them, not the upstream's.
    void link_icons(request_context& ctx) {
        auto* r = ctx.response->if_contains("result");
        auto* result = r ? r->if_object() : nullptr;
        if (!result)
            return;
        bool rewritten = ctx.method == "tools/call" ? call_link_icons(ctx, *result)
                                                    : prompt_link_icons(ctx, *result);
        if (rewritten && !ctx.verbatim.empty()) {
            std::string text;
            protocol::write_preserving(*ctx.response, ctx.verbatim, text);
            ctx.verbatim = std::move(text);
        }
    }

    static bool names_icons(const boost::json::value& v) {
        return v.is_object() && v.get_object().contains("icons");
    }

    bool call_link_icons(request_context& ctx, boost::json::object& result) {
        auto* c = result.if_contains("content");
        auto* content = c ? c->if_array() : nullptr;
        if (!content || std::none_of(content->begin(), content->end(), names_icons))
            return false;
        services_.rewrite_icons(ctx, ctx.target->upstream, *content);
        return true;
    }

    // Each message holds one content block: those that name icons are rewritten together.
    bool prompt_link_icons(request_context& ctx, boost::json::object& result) {
        auto* m = result.if_contains("messages");
        auto* messages = m ? m->if_array() : nullptr;
        if (!messages)
            return false;
        std::vector<boost::json::value*> linked;
        boost::json::array blocks;
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
        services_.rewrite_icons(ctx, ctx.target->upstream, blocks);
        for (std::size_t i = 0; i < linked.size(); ++i)
            *linked[i] = std::move(blocks[i]);
        return true;
    }

    // The upstream's own URI of a ui:// read.
    static std::optional<protocol::upstream_ui_uri> read_of_ui(const request_context& ctx) {
        if (ctx.method != "resources/read" || !ctx.name)
            return std::nullopt;
        return protocol::upstream_ui(ctx.view->snap->codec, *ctx.name);
    }

    static void settle(request_context& ctx) {
        if (!ctx.response)
            refuse(ctx, gateway_error::internal_error, {"no answer"});
        settle_outcome(ctx, *ctx.response);
    }

    void after_answer(request_context& ctx, bool list) {
        const auto& m = ctx.method;
        if ((m == "resources/subscribe" || m == "resources/unsubscribe") &&
            ctx.outcome == protocol::outcome::ok && ctx.name) {
            // Updates come under the upstream's own URI (an App's view has another here).
            auto ui = protocol::upstream_ui(ctx.view->snap->codec, *ctx.name);
            services_.record_subscription(ctx, ui ? ui->uri : *ctx.name,
                                          m == "resources/subscribe");
        }
        if (ctx.modern)
            for_modern_client(ctx, list);
    }

    boost::asio::awaitable<void> open_session(request_context& ctx) {
        if (!ctx.response->contains("result"))
            co_return;
        boost::json::object capabilities;
        if (auto* c = ctx.params.if_contains("capabilities"); c && c->is_object())
            capabilities = c->get_object();
        // Within the caller's share of the table; a refusal is in ctx (gateway/mcp/sessions).
        auto session = services_.open_session(ctx, capabilities);
        if (!session)
            co_return;
        // Any instance of a fleet continues it: its record is in the store before the client
        // hears the id.
        co_await services_.publish_session(*session, ctx.negotiated_version, capabilities,
                                           principal_key(ctx.caller));
        ctx.reply_headers.emplace_back("Mcp-Session-Id", *session);
    }

    // 2026-07-28 results say what they are; lists also how long they may be cached (the
    // shortest TTL of the upstreams), and only privately: they are filtered per principal. A
    // read of an upstream that said nothing of it (the earlier era) may not be cached at all,
    // and only privately: gate cannot know whether its content is the caller's own.
    void for_modern_client(request_context& ctx, bool list) {
        ctx.answer_status = protocol::modern_answer_status(*ctx.response);
        complete_for_modern_client(*ctx.response, ctx);
        auto* r = ctx.response->if_contains("result");
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

    egress_services& services_;
    hook_asker* hooks_;
};

} // namespace

std::unique_ptr<stage> make_egress(egress_services& services, hook_asker* hooks) {
    return std::make_unique<egress>(services, hooks);
}

} // namespace gate::transport::pipeline
