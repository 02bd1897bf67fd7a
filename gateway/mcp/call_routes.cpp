// Names resolve against the immutable snapshot on the io thread; only resource ownership,
// which the router learns from lists, needs the actor.
#include "gateway/mcp/call_routes.hpp"

#include "gateway/pipeline/answers.hpp"
#include "protocol/param_headers.hpp"
#include "protocol/tool_visibility.hpp"

#include <boost/json/parse.hpp>
#include <utility>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// A side request listing for `rec`'s caller (its credential, session and era), whose upstream
// calls and answer stay off `rec`.
request_context lister_of(const request_context& rec) {
    request_context side;
    side.view = rec.view;
    side.who.caller = rec.who.caller;
    side.who.tenant_index =
        rec.who.tenant_index; // what its tenant does not see is not asked for it
    side.admission.authorization = rec.admission.authorization;
    side.client.session = rec.client.session;
    side.client.modern = rec.client.modern;
    side.client.modern_capabilities = rec.client.modern_capabilities;
    return side;
}

// What is asked of a tools/call's name before it is routed, its name decoded once: whether no
// namespace owns it (in a federation: passthrough decodes every name), and whether gate has
// never listed the tools of the upstream it names while a decision needs them: the policy
// tests their annotations, or its definitions are pinned with `block`. It lists them before
// the call is decided, so a tool is judged by what it declares, not by MCP's cautious
// defaults, and a changed tool is withheld from its first call on (named).
struct tool_call_name {
    bool bare = false;
    std::optional<std::size_t> list_first; // the upstream whose tools are listed first
};

tool_call_name read_tool_call(std::string_view method, const json::object& params,
                              const request_context& rec) {
    tool_call_name out;
    if (method != "tools/call")
        return out;
    auto* name = params.if_contains("name");
    if (!name || !name->is_string())
        return out;
    auto d = rec.view->snap->codec.decode(name->get_string());
    out.bare = !d;
    if (!d || d->upstream >= rec.view->size())
        return out;
    // A thread that has no client of the upstream yet makes none for a tool listed already on
    // any thread (no list is wanted then): policy may still refuse the call (docs/io-threads.md).
    if (!rec.view->made(d->upstream) && rec.view->facts(d->upstream)->tools.listed())
        return out;
    auto& client = *rec.view->client_at(d->upstream); // the call goes there
    // A `block` pin judges a tool by its listed definition too. Whether anything needs the
    // list first, then whether it is wanted: a call that needs none reads no clock.
    const auto& policy = rec.view->snap->policy;
    bool needed =
        client.lists().blocks_changed_tools() ||
        (policy && policy->reads_annotations_of(rec.view->snap->upstream(d->upstream).id));
    if (needed && client.lists().tools_list_wanted(std::chrono::steady_clock::now()))
        out.list_first = d->upstream;
    return out;
}

// A tool withheld under a `block` pin is in no list, so neither the router's lists nor a bare
// name's candidates know it; every spelling of it must still reach the pin (one identity per
// tool, issue 47). The namespaced name of the one upstream the caller's tenant sees that
// withholds a tool whose own name is `bare`; none when no upstream or two do.
std::optional<std::string> withheld_by_bare_name(const std::string& bare,
                                                 const request_context& rec) {
    std::optional<std::string> found;
    const auto& snap = *rec.view->snap;
    for (std::size_t i = 0; i < rec.view->size() && i < snap.size(); ++i) {
        if (!tenant_sees(rec, i) || !rec.view->facts(i)->tools.withheld(bare))
            continue;
        if (found)
            return std::nullopt;
        found = snap.codec.client_name(i, bare);
    }
    return found;
}

// A short alias the router could not reverse (called as sent) that stands for a tool withheld
// under a `block` pin becomes that tool's own name, which for_this_client refuses.
void reverse_withheld_alias(actors::route& r, const request_context& rec) {
    const auto& codec = rec.view->snap->codec;
    auto* name = r.params.if_contains("name");
    if (codec.max_length() == 0 || !name || !name->is_string() || r.upstream >= rec.view->size())
        return;
    auto decoded = codec.decode(r.name);
    if (!decoded || !decoded->maybe_alias || name->get_string() != decoded->name)
        return; // not an alias, or one of a listed tool
    auto own = rec.view->facts(r.upstream)->tools.withheld_where([&](const std::string& n) {
        return codec.client_name(r.upstream, n) == r.name;
    });
    if (!own.empty())
        *name = std::move(own.front());
}

pipeline::routing settle_route(std::variant<actors::route, actors::route_error> outcome,
                               const json::value& id, request_context& rec) {
    if (auto* err = std::get_if<actors::route_error>(&outcome)) {
        if (!err->name.empty())
            rec.name = err->name;
        return refusal_with(rec, id, err->error, err->message);
    }
    return std::move(std::get<actors::route>(outcome));
}

} // namespace

std::optional<pipeline::routing> call_routes::route_by_name(const std::string& method,
                                                            const json::value& id,
                                                            json::object& params,
                                                            request_context& rec) {
    if (auto call = read_tool_call(method, params, rec); call.bare || call.list_first)
        return std::nullopt; // resolved against the caller's tools list, or listed first (named)
    auto named = resolve_by_name(*rec.view->snap, method, params);
    if (!named)
        return std::nullopt;
    return for_this_client(method, id, settle_route(std::move(*named), id, rec), rec);
}

pipeline::routing call_routes::for_this_client(const std::string& method, const json::value& id,
                                               pipeline::routing routed, request_context& rec) {
    auto* r = std::get_if<actors::route>(&routed);
    if (method != "tools/call" || !r || r->upstream >= rec.view->size())
        return routed;
    auto* name = r->params.if_contains("name");
    if (!name || !name->is_string())
        return routed;
    std::string own(name->get_string());
    auto facts = rec.view->facts(r->upstream); // held while read below
    if (const auto& policy = rec.view->snap->policy; policy && policy->reads_annotations())
        rec.routed.tool_hints = facts->tools.hints(own).value_or(protocol::tool_hints{});
    // Lists leave such tools out: the call says why, rather than "unknown", and is not sent.
    std::optional<std::pair<gateway_error, std::string>> refused;
    if (const auto* why = facts->tools.withheld(own))
        refused.emplace(
            gateway_error::definition_withheld,
            protocol::gateway_error_text(gateway_error::definition_withheld, {r->name, *why}));
    else if (const auto* dropped = facts->headers.dropped(own))
        refused.emplace(gateway_error::invalid_params,
                        "tool \"" + r->name +
                            "\" is left out of the lists and not called: its x-mcp-header "
                            "definition is invalid (" +
                            protocol::printable(*dropped, 400) + ")");
    else if (facts->tools.app_only(own) && !(profiles_.profile_of(rec) & protocol::profile_bit::ui))
        refused.emplace(gateway_error::invalid_params,
                        "tool \"" + r->name +
                            "\" is for MCP Apps views only (_meta.ui.visibility without "
                            "\"model\"), and this client declared no "
                            "io.modelcontextprotocol/ui extension to run them");
    // A caller refused the tool is refused by the stages after this one as for any tool, told
    // nothing of it first. Asked only of a tool one of these refusals applies to: any other
    // routed call goes on either way, and stage 5 decides its policy, once (issue 35).
    if (!refused || !may_call_tool(rec, r->upstream, own, r->name))
        return routed;
    rec.name = r->name;
    return refusal_with(rec, id, refused->first, std::move(refused->second));
}

asio::awaitable<pipeline::routing> call_routes::route_named(const std::string& method,
                                                            const json::value& id,
                                                            json::object params,
                                                            request_context& rec) {
    auto call = read_tool_call(method, params, rec);
    if (call.bare) {
        // A name no namespace owns is the one its upstream knows, when exactly one of the
        // caller's tools has it: an MCP App's view calls its server's tools so. The call then
        // goes on under that namespaced name, policy and all (docs/apps.md).
        auto* name = params.if_contains("name");
        std::string bare(name->get_string());
        auto candidates = co_await bare_name_candidates(bare, rec);
        if (candidates.size() > 1) {
            std::string which;
            for (const auto& c : candidates)
                which += (which.empty() ? "" : ", ") + c;
            rec.name = bare;
            co_return refusal_with(rec, id, gateway_error::unknown_namespace,
                                   "unknown namespace in \"" + bare +
                                       "\": more than one upstream serves a tool of that name (" +
                                       which + "); call it by one of these names");
        }
        if (candidates.empty())
            if (auto withheld = withheld_by_bare_name(bare, rec))
                candidates.push_back(std::move(*withheld));
        if (candidates.size() == 1)
            *name = candidates.front();
        // Resolved or not, a tool's name is routed by the snapshot (a short alias by the
        // router, below).
        if (auto r = resolve_by_name(*rec.view->snap, method, params))
            co_return for_this_client(method, id, settle_route(std::move(*r), id, rec), rec);
    } else {
        if (call.list_first)
            co_await rec.view->client_at(*call.list_first)
                ->lists()
                .list_first(std::chrono::steady_clock::now(),
                            [&] { return learn_names(method, rec); });
        if (auto routed_by_name = route_by_name(method, id, params, rec))
            co_return std::move(*routed_by_name);
    }
    std::optional<actors::routed> r;
    for (int attempt = 0;; ++attempt) {
        r = co_await resolver_.resolve(rec, method, params);
        if (!r)
            co_return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
        auto* err = std::get_if<actors::route_error>(&r->outcome);
        if (!err || !(err->needs_resource_lists || err->needs_name_lists) || attempt > 0)
            break;
        // The owner of a URI, and the name a short alias stands for, are learnt from the
        // lists: fetch them once, then route again.
        if (err->needs_name_lists)
            co_await learn_names(method, rec);
        else
            co_await learn_resources(rec);
    }
    if (auto* ok = std::get_if<actors::route>(&r->outcome); ok && method == "tools/call")
        reverse_withheld_alias(*ok, rec);
    co_return for_this_client(method, id, settle_route(std::move(r->outcome), id, rec), rec);
}

asio::awaitable<std::vector<std::string>> call_routes::bare_name_candidates(const std::string& bare,
                                                                            request_context& rec) {
    // The caller's own list: only tools it may see (tenant) and call (policy) are candidates.
    auto side = lister_of(rec);
    side.client.profile = rec.client.profile;
    side.who.tenant_index = rec.who.tenant_index;
    std::vector<std::string> found;
    constexpr auto tools = protocol::list_kind::tools;
    auto planned = co_await lists_.plan(tools, side);
    if (!planned)
        co_return found;
    // Each upstream is asked once (a list that is not cached is not fetched again per page);
    // the pages are cut from what was fetched.
    auto fetched = co_await lists_.fetch_lists(tools, *planned, {}, side);
    json::object params;
    for (int page = 0; page < 1000; ++page) {
        auto answer =
            co_await lists_.complete_list(tools, *planned, fetched, nullptr, params, side);
        // The page goes on the wire as the router wrote it (side.answer.verbatim): read it from
        // there.
        if (!side.answer.verbatim.empty()) {
            boost::system::error_code ec;
            auto page_text = json::parse(std::exchange(side.answer.verbatim, {}), ec);
            if (ec || !page_text.is_object())
                break;
            answer = std::move(page_text.as_object());
        }
        auto* result = answer.if_contains("result");
        auto* r = result ? result->if_object() : nullptr;
        auto* items = r ? r->if_contains("tools") : nullptr;
        if (!items || !items->is_array())
            break;
        for (const auto& t : items->get_array()) {
            auto* n = t.is_object() ? t.get_object().if_contains("name") : nullptr;
            // Only a view calls by a bare name, and a view may not call a tool for models
            // only (visibility without "app").
            if (!n || !n->is_string() || !protocol::callable_by_app(t.get_object()))
                continue;
            // The listed name is the bare one's, namespaced (and shortened, if it is long).
            const auto& codec = rec.view->snap->codec;
            auto decoded = codec.decode(n->get_string());
            if (decoded && codec.client_name(decoded->upstream, bare) == n->get_string())
                found.emplace_back(n->get_string());
        }
        auto* next = r->if_contains("nextCursor");
        if (!next || !next->is_string())
            break;
        params["cursor"] = *next;
    }
    rec.audit.upstream_calls += side.audit.upstream_calls;
    co_return found;
}

asio::awaitable<void> call_routes::learn_names(const std::string& method, request_context& rec) {
    auto side = lister_of(rec);
    side.client.profile = protocol::full_profile;
    co_await lists_.federated(method == "tools/call" ? protocol::list_kind::tools
                                                     : protocol::list_kind::prompts,
                              nullptr, {}, side);
    rec.audit.upstream_calls += side.audit.upstream_calls;
}

asio::awaitable<void> call_routes::learn_resources(request_context& rec) {
    // As gate's own lists (every profile's URIs), with the caller's credential where an
    // upstream takes it.
    auto side = lister_of(rec);
    side.client.profile = protocol::full_profile;
    co_await lists_.federated(protocol::list_kind::resources, nullptr, {}, side);
    co_await lists_.federated(protocol::list_kind::resource_templates, nullptr, {}, side);
    rec.audit.upstream_calls += side.audit.upstream_calls;
}

} // namespace gate::gateway
