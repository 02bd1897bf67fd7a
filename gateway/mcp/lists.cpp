// Federated lists: the plan the router makes, the pages fetched from the upstreams it names
// (concurrently, each charged), and the page cut and sealed from what they answered.
#include "actors/bridging/bridge_messages.hpp"
#include "actors/federation/router_messages.hpp"
#include "gateway/auth/token_authenticator.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/mcp/fan_out.hpp"
#include "gateway/operations/request_tracing.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/json_splice.hpp"
#include "protocol/list_kind.hpp"
#include "protocol/protocol_versions.hpp"
#include "protocol/trace_context.hpp"
#include "transport/bridge.hpp"
#include "transport/http/sse.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace ec = protocol::error_code;
using clock = std::chrono::steady_clock;

json::object list_response(std::optional<std::variant<list_answer, route_error>> answer,
                           const json::value& id, request_context& rec) {
    if (!answer)
        return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
    if (auto* err = std::get_if<route_error>(&*answer))
        return refusal_with(rec, id, err->error, err->message);
    auto& ok = std::get<list_answer>(*answer);
    rec.items_served = static_cast<std::int64_t>(ok.items_served);
    // The page's items go on the wire as the router serialized them once for every request
    // (rec.verbatim); the answer object only settles the outcome (and for a 2026-07-28
    // client, what egress adds to the result is added to both).
    auto result = ok.result_text();
    auto id_text = protocol::id_text(id);
    std::string wire;
    wire.reserve(result.size() + id_text.size() + 40);
    wire.append(R"({"jsonrpc":"2.0","id":)").append(id_text);
    wire.append(R"(,"result":)").append(result).append("}");
    rec.verbatim = std::move(wire);
    return protocol::make_result(id, json::object{});
}

asio::awaitable<std::vector<fetched_list>>
gateway::impl::fetch_planned(protocol::list_kind kind, const list_plan& plan,
                             std::vector<std::shared_ptr<upstream_client::guard_ticket>> tickets,
                             request_context& rec) {
    auto traits = protocol::traits(kind);
    auto outcomes = co_await fan_out<fetched_list>(
        plan.fetch.size(), [&, this](std::size_t i) -> asio::awaitable<fetched_list> {
            auto upstream = plan.fetch[i];
            // Admitted by stage 6 (a refused upstream has no ticket and is left out), or, for
            // gate's own fetches, by the client itself.
            if (!tickets.empty() && !tickets[i])
                co_return fetched_list{upstream, std::nullopt};
            auto start = clock::now();
            ++rec.upstream_calls;
            auto& client = rec.view->clients[upstream];
            // Per-caller: fetched on the caller's bridged session with its credential (and
            // never cached: actors/federation/federation.cpp).
            bridged_call call;
            auto ctx =
                client->per_caller() ? bridged_context(rec, upstream, call) : traced_call(rec);
            call.tells_keeper = false;
            ctx.profile = plan.profile; // on the root session of the client's profile
            auto span = open_upstream_span(rec, client->config().id);
            if (!span.traceparent.empty())
                ctx.traceparent = std::move(span.traceparent);
            std::vector<std::string> written; // each item as the upstream wrote it
            auto r = tickets.empty()
                         ? co_await client->fetch_list(traits.method, traits.key, ctx, &written)
                         : co_await client->fetch_list(traits.method, traits.key, ctx,
                                                       std::move(*tickets[i]), &written);
            double seconds = std::chrono::duration<double>(clock::now() - start).count();
            auto& cfg = client->config();
            if (auto* f = std::get_if<upstream_failure>(&r)) {
                auto outcome = protocol::describe(error_for(*f)).metric_label;
                stats.upstream(cfg.id, outcome, seconds);
                close_upstream_span(rec, span, outcome);
                spdlog::warn("upstream {} left out of {}: {}", cfg.id, traits.method, f->message);
                co_return fetched_list{upstream, std::nullopt};
            }
            stats.upstream(cfg.id, "ok", seconds);
            close_upstream_span(rec, span, "ok");
            auto& items = std::get<json::array>(r);
            if (fleet)
                in_fleet.share_list(kind, plan.profile, *client, items, written);
            co_return fetched_list{upstream, std::move(items), std::move(written)};
        });
    std::vector<fetched_list> fetched;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        fetched.push_back(outcomes[i] ? std::move(*outcomes[i])
                                      : fetched_list{plan.fetch[i], std::nullopt});
    co_return fetched;
}

asio::awaitable<json::object>
gateway::impl::complete_planned(protocol::list_kind kind, const list_plan& plan,
                                std::vector<fetched_list> fetched, const std::string& session,
                                const json::value& id, const json::object& params,
                                request_context& rec) {
    fetched.insert(fetched.end(), plan.from_fleet.begin(), plan.from_fleet.end());
    bool all_failed = !fetched.empty() && fetched.size() == rec.view->snap->size();
    for (auto& f : fetched)
        all_failed = all_failed && !f.items;
    if (all_failed) {
        co_return refusal(rec, id, gateway_error::all_upstreams_down);
    }
    std::optional<std::string> cursor;
    if (auto* c = params.if_contains("cursor"); c && c->is_string())
        cursor = std::string(c->get_string());
    else if (c && !c->is_null())
        co_return refusal(rec, id, gateway_error::invalid_cursor, {"not a string"});
    auto caller = cursor_owner_key(rec);
    auto who = plan.snap->policy ? rec.caller : nullptr;
    using answer_t = std::variant<list_answer, route_error>;
    auto answer = co_await ask<answer_t>(actors()->router_for(kind), [&](reply_to<answer_t> r) {
        return complete_list{plan.snap, kind,         plan.profile,   std::move(fetched), cursor,
                             caller,    std::move(r), std::move(who), rec.tenant_index};
    });
    co_return list_response(std::move(answer), id, rec);
}

asio::awaitable<std::optional<list_plan>> gateway::impl::plan_of(protocol::list_kind kind,
                                                                 request_context& rec) {
    // On the snapshot this request loaded, whatever reload came since (the router keeps it).
    auto plan = co_await ask<list_plan>(actors()->router_for(kind), [&](reply_to<list_plan> r) {
        return plan_list{rec.view->snap, kind, profile_of(rec), std::move(r)};
    });
    if (plan && fleet && !plan->fetch.empty())
        co_await in_fleet.fill_from_fleet(kind, *plan, rec);
    co_return plan;
}

asio::awaitable<json::object> gateway::impl::federated_list(protocol::list_kind kind,
                                                            const std::string& session,
                                                            const json::value& id,
                                                            const json::object& params,
                                                            request_context& rec) {
    auto plan = co_await plan_of(kind, rec);
    if (!plan)
        co_return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
    auto fetched = co_await fetch_planned(kind, *plan, {}, rec);
    co_return co_await complete_planned(kind, *plan, std::move(fetched), session, id, params, rec);
}

} // namespace gate::transport
