// A list's upstreams are fetched concurrently; one that fails is left out and counted, and only
// when every upstream of the federation failed is the list refused.
#include "gateway/mcp/list_methods.hpp"

#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "gateway/pipeline/request_tracing.hpp"
#include "gateway/pipeline/tool_search_scope.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/keep_items.hpp"
#include "protocol/param_headers.hpp"
#include "protocol/tool_name.hpp"
#include "protocol/tool_visibility.hpp"
#include "transport/io/fan_out.hpp"

#include <algorithm>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

namespace {

// A client that runs no App views has only a model: a tool hidden from models (visibility
// ["app"]) is not for it, and is left out of its list (docs/apps.md).
void leave_out_app_only(json::array& items, std::vector<std::string>& written) {
    protocol::keep_items(items, &written, [](const json::value& item) {
        const auto* tool = item.if_object();
        return !tool || protocol::visible_to_model(*tool);
    });
}

// The lists the fleet's shared cache held, joined to the fetched ones; whether every upstream
// of the federation then failed (a list is refused, a search says so).
bool join_fleet_lists(std::vector<actors::fetched_list>& fetched, const actors::list_plan& plan,
                      std::size_t upstreams) {
    fetched.insert(fetched.end(), plan.from_fleet.begin(), plan.from_fleet.end());
    return !fetched.empty() && fetched.size() == upstreams &&
           std::none_of(fetched.begin(), fetched.end(), [](const auto& f) { return !!f.items; });
}

} // namespace

std::uint64_t cursor_owner_key(const request_context& rec) {
    // A cursor is only a position in a list; for anonymous callers their session is the
    // narrowest binding there is (a stateless client has none, and shares with its peers).
    return rec.who.caller
               ? protocol::principal_hash(rec.who.caller->issuer, rec.who.caller->subject)
               : protocol::principal_hash("session", rec.client.session);
}

json::object
list_response(std::optional<std::variant<actors::list_answer, actors::route_error>> answer,
              const json::value& id, request_context& rec) {
    if (!answer)
        return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
    if (auto* err = std::get_if<actors::route_error>(&*answer))
        return refusal_with(rec, id, err->error, err->message);
    auto& ok = std::get<actors::list_answer>(*answer);
    rec.audit.items_served = static_cast<std::int64_t>(ok.items_served);
    // The page's items go on the wire as the router serialized them once for every request
    // (rec.answer.verbatim); the answer object only settles the outcome (and for a 2026-07-28
    // client, what egress adds to the result is added to both).
    auto result = ok.result_text();
    auto id_text = protocol::id_text(id);
    std::string wire;
    wire.reserve(result.size() + id_text.size() + 40);
    wire.append(R"({"jsonrpc":"2.0","id":)").append(id_text);
    wire.append(R"(,"result":)").append(result).append("}");
    rec.answer.verbatim = std::move(wire);
    return protocol::make_result(id, json::object{});
}

void list_methods::drop_unusable_tools(json::array& items, std::vector<std::string>& written,
                                       std::size_t upstream, const request_context& rec) {
    // A federation's names are gate's: one a client would refuse (over 128 characters once
    // namespaced and not shortened, or with characters the specification does not allow) is
    // left out, said and counted, rather than listed for clients to fail on. Passthrough
    // lists the upstream as it is.
    const auto& codec = rec.view->snap->codec;
    if (codec.passthrough())
        return;
    const auto& id = rec.view->snap->upstream(upstream).id;
    protocol::keep_items(items, &written, [&](const json::value& item) {
        auto* o = item.if_object();
        auto* n = o ? o->if_contains("name") : nullptr;
        std::string_view name = n && n->is_string() ? std::string_view(n->get_string()) : "";
        auto fault = protocol::check_tool_name(name);
        // A name too long for the specification is listed when it is shortened (its alias
        // is reversed to it on a call).
        if (fault == protocol::tool_name_fault::too_long && codec.max_length() > 0)
            fault = protocol::in_tool_name_charset(name) ? protocol::tool_name_fault::none
                                                         : protocol::tool_name_fault::charset;
        if (fault == protocol::tool_name_fault::none &&
            codec.client_name(upstream, name).size() > protocol::max_tool_name)
            fault = protocol::tool_name_fault::too_long;
        if (fault == protocol::tool_name_fault::none)
            return true;
        spdlog::warn("upstream {}: tool {} ({} characters as {}...) left out of tools/list: {}", id,
                     protocol::printable(name, 200), codec.encode(upstream, name).size(),
                     codec.encode(upstream, ""),
                     fault == protocol::tool_name_fault::too_long
                         ? "over the specification's 128 characters"
                         : "outside the specification's characters (A-Z a-z 0-9 _ - .)");
        services_.counts.tool_dropped(id, protocol::fault_label(fault));
        return false;
    });
}

asio::awaitable<std::variant<json::array, upstream_failure>>
list_methods::fetched(protocol::list_kind kind, protocol::client_profile profile,
                      std::size_t upstream, ticket admitted, request_context& rec,
                      std::vector<std::string>& written) {
    auto start = clock::now();
    ++rec.audit.upstream_calls;
    const auto& id = rec.view->snap->upstream(upstream).id;
    auto span = open_upstream_span(rec, id);
    auto r = co_await services_.fetcher.fetch(kind, profile, upstream, std::move(span.traceparent),
                                              std::move(admitted), rec, written);
    double seconds = std::chrono::duration<double>(clock::now() - start).count();
    if (auto* f = std::get_if<upstream_failure>(&r)) {
        auto outcome = protocol::describe(error_for(*f)).metric_label;
        if (!f->login_first())
            services_.counts.count(id, outcome, seconds);
        close_upstream_span(rec, span, outcome);
        co_return r;
    }
    services_.counts.count(id, "ok", seconds);
    close_upstream_span(rec, span, "ok");
    auto& items = std::get<json::array>(r);
    if (kind == protocol::list_kind::tools) {
        drop_unusable_tools(items, written, upstream, rec);
        if (!(profile & protocol::profile_bit::ui))
            leave_out_app_only(items, written);
    }
    co_return r;
}

asio::awaitable<std::optional<actors::list_plan>> list_methods::plan(protocol::list_kind kind,
                                                                     request_context& rec) {
    auto plan = co_await services_.router.plan(kind, rec);
    if (plan)
        co_await services_.sharing.fill_from_fleet(kind, *plan, rec);
    co_return plan;
}

asio::awaitable<actors::fetched_list> list_methods::fetch_one(protocol::list_kind kind,
                                                              const actors::list_plan& plan,
                                                              std::size_t upstream, ticket admitted,
                                                              request_context& rec) {
    std::vector<std::string> written; // each item as the upstream wrote it
    auto r = co_await fetched(kind, plan.profile, upstream, std::move(admitted), rec, written);
    if (auto* f = std::get_if<upstream_failure>(&r); f && f->needs_login)
        // A user-account upstream where the caller has connected no account yet: nothing to
        // list for it there (its first call starts the login), not an upstream that failed.
        co_return actors::fetched_list{upstream, json::array{}, {}};
    if (auto* f = std::get_if<upstream_failure>(&r)) {
        spdlog::warn("upstream {} left out of {}: {}", rec.view->snap->upstream(upstream).id,
                     protocol::traits(kind).method, f->message);
        co_return actors::fetched_list{upstream, std::nullopt};
    }
    auto& items = std::get<json::array>(r);
    services_.sharing.share_list(kind, plan.profile, *rec.view->client_at(upstream), items,
                                 written);
    co_return actors::fetched_list{upstream, std::move(items), std::move(written)};
}

asio::awaitable<std::variant<json::array, upstream_failure>>
list_methods::listing(protocol::list_kind kind, protocol::client_profile profile,
                      std::size_t upstream, request_context& rec) {
    if (!tenant_sees(rec, upstream)) { // never asked on behalf of a tenant that does not see it
        upstream_failure hidden{};
        hidden.what = upstream_failure::kind::protocol;
        hidden.message = "the caller's tenant does not see this upstream";
        hidden.upstream_at_fault = false;
        co_return hidden;
    }
    std::vector<std::string> written;
    co_return co_await fetched(kind, profile, upstream, nullptr, rec, written);
}

asio::awaitable<std::vector<actors::fetched_list>>
list_methods::fetch_lists(protocol::list_kind kind, const actors::list_plan& plan,
                          std::vector<ticket> tickets, request_context& rec) {
    auto outcomes = co_await transport::fan_out<actors::fetched_list>(
        plan.fetch.size(), [&, this](std::size_t i) -> asio::awaitable<actors::fetched_list> {
            // Admitted by stage 6 (a refused upstream has no ticket and is left out), or, for
            // gate's own fetches, by the client itself.
            if (!tickets.empty() && !tickets[i])
                co_return actors::fetched_list{plan.fetch[i], std::nullopt};
            // An upstream the caller's tenant does not see is not asked on its behalf (with a
            // per-caller credential, that would hand it the caller's token).
            if (!tenant_sees(rec, plan.fetch[i]))
                co_return actors::fetched_list{plan.fetch[i], std::nullopt};
            // Nor is one that takes each caller's credential asked without a caller (gate's own
            // lists: the console's catalog, icons): gate has no credential of its own there.
            if (!rec.who.caller && rec.view->per_caller(plan.fetch[i]))
                co_return actors::fetched_list{plan.fetch[i], std::nullopt};
            co_return co_await fetch_one(kind, plan, plan.fetch[i],
                                         tickets.empty() ? nullptr : tickets[i], rec);
        });
    std::vector<actors::fetched_list> fetched;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        fetched.push_back(outcomes[i] ? std::move(*outcomes[i])
                                      : actors::fetched_list{plan.fetch[i], std::nullopt});
    co_return fetched;
}

asio::awaitable<json::object>
list_methods::complete_list(protocol::list_kind kind, const actors::list_plan& plan,
                            std::vector<actors::fetched_list> fetched, const json::value& id,
                            const json::object& params, request_context& rec) {
    bool all_failed = join_fleet_lists(fetched, plan, rec.view->snap->size());
    if (all_failed)
        co_return refusal(rec, id, gateway_error::all_upstreams_down);
    std::optional<std::string> cursor;
    if (auto* c = params.if_contains("cursor"); c && c->is_string())
        cursor = std::string(c->get_string());
    else if (c && !c->is_null())
        co_return refusal(rec, id, gateway_error::invalid_cursor, {"not a string"});
    co_return list_response(co_await services_.router.complete(kind, plan, std::move(fetched),
                                                               std::move(cursor), rec,
                                                               tool_listing_of(kind, rec)),
                            id, rec);
}

std::shared_ptr<const actors::tool_listing>
list_methods::tool_listing_of(protocol::list_kind kind, const request_context& rec) {
    if (kind != protocol::list_kind::tools || !pipeline::searches_tools(rec))
        return nullptr;
    auto listing = std::make_shared<actors::tool_listing>();
    // A 2026-07-28 client has no session to keep a selection in.
    listing->gate_tools = protocol::gate_tool_definitions(!rec.client.modern);
    if (!rec.client.modern)
        listing->selected = services_.selections.selected_tools(rec.client.session);
    return listing;
}

asio::awaitable<json::object>
list_methods::answer_gate_tool(protocol::gate_tool tool, const actors::list_plan& plan,
                               std::vector<actors::fetched_list> fetched, const json::value& id,
                               const json::object& params, request_context& rec) {
    bool all_failed = join_fleet_lists(fetched, plan, rec.view->snap->size());
    if (all_failed) // not "nothing matches": the model would take the tool for missing
        co_return protocol::make_result(
            id, protocol::gate_tool_error("no upstream server answered for its tools list; try "
                                          "again later"));
    std::string query;
    std::size_t limit = 0;
    std::optional<std::vector<std::string>> names;
    if (tool == protocol::gate_tool::search) {
        auto read = protocol::read_search(params);
        if (auto* why = std::get_if<std::string>(&read))
            co_return protocol::make_result(id, protocol::gate_tool_error(std::move(*why)));
        auto& asked = std::get<protocol::tool_search_request>(read);
        query = std::move(asked.query);
        limit = asked.limit;
    } else {
        auto read = protocol::read_select(params);
        if (auto* why = std::get_if<std::string>(&read))
            co_return protocol::make_result(id, protocol::gate_tool_error(std::move(*why)));
        names = std::move(std::get<protocol::tool_select_request>(read).names);
    }
    auto found = co_await services_.router.query(plan, std::move(fetched), query, limit,
                                                 std::move(names), rec);
    if (!found)
        co_return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
    rec.audit.items_served = static_cast<std::int64_t>(found->tools.size());
    if (tool == protocol::gate_tool::search)
        co_return protocol::make_result(id,
                                        protocol::search_result(std::move(found->tools), query));
    // Only tools the caller may call are kept: the others are named back as unknown.
    std::vector<std::string> selected;
    for (const auto& t : found->tools)
        selected.emplace_back(t.at("name").as_string());
    if (!services_.selections.select_tools(rec.client.session, selected))
        co_return protocol::make_result(
            id, protocol::gate_tool_error("this session is not known here; initialize again"));
    co_return protocol::make_result(id, protocol::select_result(selected, found->unknown));
}

asio::awaitable<json::object> list_methods::federated(protocol::list_kind kind,
                                                      const json::value& id,
                                                      const json::object& params,
                                                      request_context& rec) {
    auto planned = co_await plan(kind, rec);
    if (!planned)
        co_return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
    auto fetched = co_await fetch_lists(kind, *planned, {}, rec);
    co_return co_await complete_list(kind, *planned, std::move(fetched), id, params, rec);
}

} // namespace gate::gateway
