// The introspection endpoints and the console (spec: Endpoints, Introspection endpoints).
// /api/federation authenticates like the MCP endpoint and shares its rate budgets (it enters
// the chain by its own door, pipeline::door::view: stages 2 and 3 run for it, and a refusal
// leaves by the exit, audited like any); an answered read is a view, not an MCP request, and
// leaves no audit event. /api/auth-hint and the console's assets
// are public and carry public configuration only. The old console API paths answer 404.
#include "gateway/entry/introspection_views.hpp"

#include "actors/bridge.hpp"
#include "actors/supervision/supervisor.hpp"
#include "gateway/auth/token_endpoint.hpp"
#include "gateway/entry/catalog.hpp"
#include "gateway/entry/introspection.hpp"
#include "gateway/fleet/fleet_store.hpp"
#include "gateway/operations/console_assets.hpp"
#include "gateway/operations/traffic_report.hpp"
#include "gateway/pipeline/answers.hpp"
#include "policy/policy_explain.hpp"
#include "protocol/json_text.hpp"
#include "protocol/param_headers.hpp"
#include "protocol/ui_uri.hpp"
#include "transport/io/fan_out.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse_query.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

namespace gate::gateway {

namespace http = boost::beast::http;

namespace {

transport::http_reply no_store(transport::http_reply reply) {
    reply.headers.emplace_back("Cache-Control", "no-store");
    return reply;
}

// The instance that answers (its host name and process id): the console's traffic is this
// instance's alone, and says so.
const std::pair<std::string, std::int64_t>& this_instance() {
    static const auto id = [] {
        char name[256] = {};
        if (gethostname(name, sizeof name - 1) != 0)
            name[0] = '\0';
        return std::pair<std::string, std::int64_t>{name, static_cast<std::int64_t>(getpid())};
    }();
    return id;
}

} // namespace

boost::asio::awaitable<transport::http_reply>
introspection_views::federation(request_context& rec) {
    // Stages 2 and 3 admitted the viewer at the chain's entry (door::view).
    auto view = rec.view; // the snapshot it loaded, whatever a reload does meanwhile
    auto report = co_await health_.report();
    // Each upstream as it named itself, its icons under gate's origin like its lists' ones.
    std::vector<boost::json::object> identities;
    for (std::size_t i = 0; i < view->size(); ++i) {
        auto identity = server_identity(*view->identity(i));
        icons_.rewrite_one(*view->snap, i, "serverInfo", identity);
        identities.push_back(std::move(identity));
    }
    auto discovered = discovery_ ? std::optional(discovery_->get()) : std::nullopt;
    federation_facts facts{*view->snap->doc,  view->snap->version,
                           report.detailed,   discovered ? &*discovered : nullptr,
                           fleet_ != nullptr, fleet_ && fleet_->up(),
                           rec.who.caller,    rec.who.tenant,
                           &identities};
    if (rec.who.tenant_index)
        facts.sees = [&tenants = *view->snap->tenants, t = *rec.who.tenant_index](
                         std::string_view id) { return tenants.sees(t, id); };
    co_return no_store(transport::http_reply::json(
        http::status::ok, protocol::json_text(federation_snapshot(facts))));
}

namespace {

// The query of GET /api/explain: method, and name (a listed name), or server with name or
// uri; arguments as JSON text.
std::variant<policy::explain_request, std::string>
explain_query(const transport::http_request& req) {
    std::string_view target(req.target().data(), req.target().size());
    auto q = target.find('?');
    if (q == std::string_view::npos)
        return std::string("the query names nothing; give method and name (or server and uri)");
    std::string query(target.substr(q + 1)); // NUL-terminated for Boost.URL 1.81
    auto params = boost::urls::parse_query(query);
    if (!params)
        return std::string("the query cannot be read");
    policy::explain_request r;
    std::string arguments;
    boost::urls::encoding_opts form(true); // a form's '+' is a space
    for (const auto& p : *params) {
        auto key = p.key.decode(form);
        std::string* field = key == "method"      ? &r.method
                             : key == "name"      ? &r.name
                             : key == "uri"       ? &r.uri
                             : key == "server"    ? &r.server
                             : key == "arguments" ? &arguments
                                                  : nullptr;
        if (!field)
            return "unknown query parameter \"" + protocol::printable(key, 60) +
                   "\" (method, name, uri, server, arguments)";
        *field = p.value.decode(form);
    }
    if (r.method.empty())
        return std::string("method is required, for example method=tools/call");
    if (!arguments.empty()) {
        boost::system::error_code ec;
        auto parsed = boost::json::parse(arguments, ec);
        if (ec || !parsed.is_object())
            return std::string("arguments must be a JSON object");
        r.arguments = std::move(parsed.as_object());
    }
    return r;
}

// A tool asked about by its short alias (routing.maxNameLength): reversed from gate's last list
// of its upstream, as the router reverses it for a call, so the answer is the call's. Why not,
// when the alias stands for more than one tool.
std::optional<std::string> reverse_alias(const federation_view& view,
                                         policy::explain_request& what) {
    const auto& codec = view.snap->codec;
    auto d = what.method == "tools/call" && what.server.empty()
                 ? codec.decode(what.name)
                 : std::optional<protocol::decoded_name>();
    if (!d || !d->maybe_alias || d->upstream >= view.size())
        return std::nullopt; // not an alias
    auto upstream = d->upstream;
    auto facts = view.facts(upstream);
    if (!facts->tools.listed())
        return std::nullopt; // explain() asks for the tool's own name
    auto names = facts->tools.named(
        [&](const std::string& own) { return codec.client_name(upstream, own) == what.name; });
    what.alias_checked = true;
    if (names.size() > 1)
        return "\"" + what.name + "\" is the shortened name of " + std::to_string(names.size()) +
               " tools of one upstream (routing.maxNameLength); none of them can be called by it";
    if (names.size() == 1) {
        what.server = view.snap->upstream(upstream).id;
        what.name = std::move(names.front());
    }
    return std::nullopt; // none: not an alias after all, decided as sent
}

// An upstream the caller's tenant does not see, asked about by id or by a name in its
// namespace: answered word for word as an unknown one (policy_explain's own words), as a call
// is (tenants[].upstreams), before anything of it (a shortened name's tools) is looked at.
std::optional<std::string> unseen_by_tenant(const request_context& rec,
                                            const policy::explain_request& what) {
    if (!rec.who.tenant_index)
        return std::nullopt;
    const auto& snap = *rec.view->snap;
    if (!what.server.empty()) {
        auto at = snap.upstream_by_id.find(what.server);
        if (at != snap.upstream_by_id.end() && !tenant_sees(rec, at->second))
            return policy::unknown_upstream_text(what.server);
        return std::nullopt;
    }
    if (what.method != "tools/call" && what.method != "prompts/get") {
        // A rewritten ui:// URI names its upstream: one the tenant does not see is answered as
        // a URI no upstream owns (policy_explain's words).
        auto ui = protocol::upstream_ui(snap.codec, what.uri);
        if (ui && ui->upstream < snap.size() && !tenant_sees(rec, ui->upstream))
            return "server is required for " + what.method +
                   " (a URI's owner is known from lists only)";
        return std::nullopt;
    }
    auto d = snap.codec.decode(what.name);
    if (d && d->upstream < snap.size() && !tenant_sees(rec, d->upstream))
        return policy::unknown_namespace_text(what.name);
    return std::nullopt;
}

} // namespace

transport::http_reply introspection_views::explain(const request_context& rec,
                                                   const transport::http_request& req) const {
    auto asked = explain_query(req);
    auto refused = [](std::string why) {
        return no_store(
            error_reply({gateway_error::explain_invalid,
                         protocol::gateway_error_text(gateway_error::explain_invalid, {why})}));
    };
    if (auto* why = std::get_if<std::string>(&asked))
        return refused(std::move(*why));
    auto& what = std::get<policy::explain_request>(asked);
    const auto& view = *rec.view;
    if (auto why = unseen_by_tenant(rec, what))
        return refused(std::move(*why));
    if (auto why = reverse_alias(view, what))
        return refused(std::move(*why));
    const auto& snap = *view.snap;
    policy::policy_world world{*snap.doc, snap.policy.get(), snap.codec, snap.tenants.get()};
    const auto* caller = rec.who.caller ? &*rec.who.caller : nullptr;
    auto got = gate::policy::explain(world, caller, what);
    if (auto* e = std::get_if<policy::explained>(&got); e && what.method == "tools/call") {
        // The tool's hints as gate last listed them, as the call would be decided.
        for (std::size_t i = 0; i < snap.size(); ++i)
            if (snap.upstream(i).id == e->server && i < view.size())
                what.hints = view.facts(i)->tools.hints(e->own_name);
        got = gate::policy::explain(world, caller, what);
    }
    if (auto* why = std::get_if<std::string>(&got))
        return refused(std::move(*why));
    auto body = explanation_json(std::get<policy::explained>(got));
    body["principal"] = caller ? boost::json::value(caller->subject) : boost::json::value(nullptr);
    return no_store(transport::http_reply::json(http::status::ok, protocol::json_text(body)));
}

boost::asio::awaitable<transport::http_reply>
introspection_views::traffic(const request_context& rec) const {
    std::optional<traffic_history> merged;
    if (others_) {
        merged.emplace(traffic_);
        for (const auto& other : co_await others_())
            merged->add(*other);
    }
    const auto& view = *rec.view;
    traffic_facts facts{merged ? *merged : traffic_,
                        {},
                        principal_key(rec.who.caller),
                        std::chrono::steady_clock::now(),
                        std::chrono::system_clock::now(),
                        this_instance().first,
                        this_instance().second};
    for (std::size_t i = 0; i < view.snap->size() && i < view.size(); ++i) {
        if (!tenant_sees(rec, i)) {
            // Not told of it; and gate's own series counts its callers' requests too.
            facts.gate_series = false;
            continue;
        }
        const auto& u = view.snap->upstream(i);
        facts.upstreams.push_back({u.id, u.urls, view.board(i)->changes()});
    }
    co_return no_store(
        transport::http_reply::json(http::status::ok, protocol::json_text(traffic_report(facts))));
}

namespace {

constexpr protocol::list_kind catalog_kinds[] = {
    protocol::list_kind::tools, protocol::list_kind::prompts, protocol::list_kind::resources};

// A side request listing for the viewer of `rec`, with its credential, on its principal's
// bridged session; its upstream calls stay off the view.
request_context lister_for(const request_context& rec) {
    request_context side;
    side.view = rec.view;
    side.who.caller = rec.who.caller;
    side.who.tenant_index = rec.who.tenant_index;
    side.admission.authorization = rec.admission.authorization;
    side.client.profile = protocol::full_profile;
    return side;
}

// The viewer's own listing of each upstream that takes each caller's credential and that its
// tenant sees: made now with the viewer's credential (never anyone else's), kept nowhere.
// Without a caller there is none: gate has no credential of its own there.
boost::asio::awaitable<std::vector<caller_listing>> own_listings(list_methods& lists,
                                                                 const request_context& rec) {
    std::vector<std::size_t> wanted;
    for (std::size_t i = 0; rec.who.caller && i < rec.view->size(); ++i)
        if (rec.view->per_caller(i) && tenant_sees(rec, i))
            wanted.push_back(i);
    auto got = co_await transport::fan_out<caller_listing>(
        wanted.size(), [&](std::size_t n) -> boost::asio::awaitable<caller_listing> {
            caller_listing own{wanted[n], {}, {}};
            auto side = lister_for(rec);
            for (std::size_t k = 0; k < 3; ++k) {
                auto r = co_await lists.listing(catalog_kinds[k], protocol::full_profile,
                                                own.upstream, side);
                if (auto* f = std::get_if<upstream_failure>(&r)) {
                    // One viewer's credential refused is not operator news.
                    own.problem = "listing it with your credential failed: " + f->message;
                    spdlog::debug("catalog: upstream {} not listed for {}: {}",
                                  rec.view->snap->upstream(own.upstream).id,
                                  rec.who.caller->subject, f->message);
                    break; // the other kinds would fail alike
                }
                own.lists[k] = std::move(std::get<boost::json::array>(r));
            }
            co_return own;
        });
    std::vector<caller_listing> out;
    for (auto& g : got)
        if (g)
            out.push_back(std::move(*g));
    co_return out;
}

} // namespace

boost::asio::awaitable<transport::http_reply> introspection_views::catalog(request_context& rec) {
    auto view = rec.view; // the snapshot it loaded, whatever a reload does meanwhile
    // gate's own lists first, as for icons (learn_icons): a list not cached yet, or expired,
    // is fetched; one whose upstream does not answer stays out, and so does every upstream
    // that takes each caller's credential (gate has none of its own there; own_listings).
    request_context side;
    side.view = view;
    side.client.profile = protocol::full_profile;
    std::vector<actors::fetched_list> cached[3];
    for (std::size_t k = 0; k < 3; ++k) {
        co_await lists_.federated(catalog_kinds[k], nullptr, {}, side);
        using lists_t = std::vector<actors::fetched_list>;
        auto got = co_await actors::ask<lists_t>(
            actors_.load()->router_for(catalog_kinds[k]), [&](actors::reply_to<lists_t> r) {
                return actors::read_cached_lists{view->snap, catalog_kinds[k],
                                                 protocol::full_profile, std::move(r)};
            });
        if (got)
            cached[k] = std::move(*got);
    }
    auto own = co_await own_listings(lists_, rec);
    const auto& snap = *view->snap;
    policy::policy_world world{*snap.doc, snap.policy.get(), snap.codec, snap.tenants.get()};
    catalog_facts facts{world,
                        rec.who.caller ? &*rec.who.caller : nullptr,
                        std::move(cached[0]),
                        std::move(cached[1]),
                        std::move(cached[2]),
                        std::move(own)};
    co_return no_store(
        transport::http_reply::json(http::status::ok, protocol::json_text(catalog_report(facts))));
}

boost::asio::awaitable<void>
introspection_views::learn_icons(std::shared_ptr<const actors::snapshot> snap,
                                 std::size_t upstream) {
    auto view = live_.current_view();
    if (view->snap != snap || upstream >= view->size())
        co_return; // reloaded meanwhile: the next request asks on the new snapshot
    auto identity = server_identity(*view->identity(upstream));
    icons_.rewrite_one(*snap, upstream, "serverInfo", identity);
    // Gate's own lists, as for routing by URI: what is fetched is rewritten (and learnt).
    request_context side;
    side.view = view;
    side.client.profile = protocol::full_profile;
    for (auto kind : {protocol::list_kind::tools, protocol::list_kind::prompts,
                      protocol::list_kind::resources, protocol::list_kind::resource_templates})
        co_await lists_.federated(kind, nullptr, {}, side);
}

transport::http_reply auth_hint_reply(const config::document& doc, const token_endpoint* tokens) {
    std::optional<std::string> own;
    if (tokens)
        own = tokens->issuer();
    return transport::http_reply::json(http::status::ok,
                                       boost::json::serialize(auth_hint(doc, own)));
}

std::optional<transport::http_reply> console_page(std::string_view path) {
    if (path == "/console") {
        auto reply = transport::http_reply::empty(http::status::permanent_redirect);
        reply.headers.emplace_back("Location", "/console/");
        return reply;
    }
    auto asset = console_asset_at(path);
    if (!asset) // the old /console/api/* paths included
        return std::nullopt;
    transport::http_reply reply{
        http::status::ok, std::string(asset->content_type), std::string(asset->body), {}, false};
    reply.headers.emplace_back("Content-Security-Policy", std::string(console_csp));
    reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
    reply.headers.emplace_back("Referrer-Policy", "no-referrer");
    reply.headers.emplace_back("Cache-Control", "no-cache");
    return reply;
}

} // namespace gate::gateway
