// The composition root (gateway_components.hpp): the components built in order, then wired.
#include "gateway/program/gateway_components.hpp"

#include "gateway/operations/traffic_tap.hpp"
#include "gateway/pipeline/request_traffic.hpp"
#include "gateway/pipeline/s1_host_origin.hpp"
#include "gateway/pipeline/s2_authenticate.hpp"
#include "gateway/pipeline/s3_global_limit.hpp"
#include "gateway/pipeline/s4_route.hpp"
#include "gateway/pipeline/s5_authorize.hpp"
#include "gateway/pipeline/s6_upstream_guards.hpp"
#include "gateway/pipeline/s7_proxy.hpp"
#include "gateway/pipeline/s8_egress.hpp"
#include "gateway/pipeline/s9_audit.hpp"
#include "protocol/random_id.hpp"
#include "protocol/sealed_box.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway::program {

namespace asio = boost::asio;

std::shared_ptr<const federation_view> make_view(asio::io_context& io,
                                                 std::shared_ptr<const actors::snapshot> snap,
                                                 const federation_view* previous,
                                                 shared_upstreams* shared, client_maker maker) {
    auto view = std::make_shared<federation_view>();
    view->snap = std::move(snap);
    view->maker = std::move(maker);
    const auto& server = view->snap->doc->server;
    view->guard = transport::host_guard(server.allowed_hosts, server.allowed_hosts_any);
    for (const auto& u : view->snap->doc->upstreams) {
        // An unchanged entry keeps its siblings, and its client where this thread made one. A
        // new or changed one gets the siblings the other threads' clients of it join (one
        // thread: its own).
        std::shared_ptr<upstream_siblings> entry;
        std::shared_ptr<upstream_client> client;
        if (auto j = previous ? previous->index_of(u.id) : std::nullopt;
            j && previous->config(*j) == u) {
            entry = previous->entry(*j);
            client = previous->made_ptr(*j);
        }
        if (!entry)
            entry = shared ? shared->siblings_for(u) : std::make_shared<upstream_siblings>(u);
        if (!client && !view->maker)
            client = upstream_client::make(io.get_executor(), u, entry);
        view->add(std::move(entry), std::move(client));
    }
    return view;
}

namespace {

// The token endpoint of auth.ema, with the key from the environment (checked at start:
// missing_secrets).
std::unique_ptr<token_endpoint> make_token_endpoint(asio::io_context& io,
                                                    const config::auth& auth) {
    if (!auth.ema)
        return nullptr;
    const char* pem = std::getenv(auth.ema->signing_key_ref.c_str());
    auto signer = protocol::jose::es256_signer::from_pem(pem ? pem : "");
    if (auto* why = std::get_if<std::string>(&signer))
        throw std::runtime_error("auth.ema.signingKeyRef: " + *why);
    return std::make_unique<token_endpoint>(io.get_executor(), auth,
                                            std::move(std::get<0>(signer)));
}

std::optional<token_authenticator::own_issuer>
own_issuer_of(const std::unique_ptr<token_endpoint>& tokens) {
    if (!tokens)
        return std::nullopt;
    return token_authenticator::own_issuer{tokens->issuer(), tokens->public_key()};
}

} // namespace

namespace {

// What an upstream says outside any call's observer (its sessions' GET streams, a call without
// one), heard by the gateway as that upstream's.
class session_traffic final : public upstream_observer {
public:
    session_traffic(upstream_traffic& news, const upstream_client* from)
        : news_(news), from_(from) {}
    void message(const std::string& bridge, upstream_message m) override {
        news_.on_message(from_, bridge, std::move(m));
    }

private:
    upstream_traffic& news_;
    const upstream_client* from_;
};
} // namespace

gateway_components::gateway_components(
    asio::io_context& io_, gateway_parts parts_,
    const std::function<void(const request_context&)>& on_request)
    : io(io_), parts(std::move(parts_)),
      sinks(io_.get_executor(), *parts.actors, parts.tap, on_request), doc(*parts.snap->doc),
      live(make_view(io_, parts.snap, nullptr, parts.upstreams.get(), maker())),
      tokens(make_token_endpoint(io_, doc.auth)),
      authenticator(doc.auth.required ? std::make_unique<token_authenticator>(
                                            io_.get_executor(), doc.auth, own_issuer_of(tokens))
                                      : nullptr),
      resource_metadata(doc.auth.required ? resource_metadata_url(doc.auth.resource.value_or(""))
                                          : std::string()),
      server(io_, face, static_cast<std::size_t>(doc.server.max_body_bytes), "gate"),
      stages({pipeline::make_host_origin(),
              pipeline::make_authenticate(authenticator.get(), resource_metadata),
              pipeline::make_global_limit(guards, guards.leases()), pipeline::make_route(routes),
              pipeline::make_authorize(resource_metadata, &decisions),
              pipeline::make_upstream_guards(
                  {guards, guards.budgets(), stats, guards, guards.leases().tools}),
              pipeline::make_proxy({calls, lists, from_clients, tasks, listening}),
              pipeline::make_egress(
                  {lists, tasks, icons, listening, downstream.opening(), downstream.fleet()},
                  &decisions)},
             pipeline::make_audit(sinks, stats, &traffic),
             // The read step hears through gate --record's tap only when recording.
             {pipeline::make_read(sinks.tap()), pipeline::make_trace(),
              pipeline::make_session(downstream.fleet()), pipeline::make_envelope()}) {
    upstream_news.send_task_news_to(listening);
    downstream.forget_requests_in(requests.server_requests());
    downstream.forget_levels_in(from_clients.levels());
    if (parts.shard.index > 0) // where clients are made at first use (maker)
        from_clients.levels().keep_while(
            [this](const std::string& session) { return downstream.table().contains(session); });
    downstream.table().set_limits(session_limits_of(doc.server),
                                  session_table::among_threads{parts.shard, parts.sessions});
    requests.inputs().place_in(parts.shard);
    listens.place_in(parts.shard.index, parts.shard.count);
    decisions.share_among(static_cast<std::int64_t>(parts.shard.count));
    definitions->use(doc);
    accounts.use(doc);
    accounts.tell([this](const accounts::account_event& e) { account_news(e); });
    icons.learn_through([this](std::shared_ptr<const actors::snapshot> snap, std::size_t upstream) {
        return views.learn_icons(std::move(snap), upstream);
    });
    if (parts.shared_store) {
        fleet = std::make_shared<fleet_store>(io_.get_executor(), *parts.shared_store, stats);
        downstream.fleet().join(fleet, protocol::random_id().substr(0, 8) + "-",
                                parts.fleet_cursor_key);
        definitions->share_through(fleet);
        guards.share_through(fleet);
        ledger.share_through(fleet);
        views.share_through(fleet);
        if (tokens)
            tokens->share_through(fleet);
        share_accounts(doc);
    }
    for (const auto& c : live->made_clients())
        wire(c);
    // Each upstream's actor is the supervisor's to spawn and watch (the first io thread speaks
    // for every thread's clients: they share its boards).
    if (parts.supervisor && parts.shard.index == 0)
        caf::anon_send(parts.supervisor, actors::adopt_upstreams{live->boards()});
    follow_upstreams(traffic, *live->snap);
    tell_of_reloads();
}

// Who adopts a reload's view, in this order, once take_clients has retired and wired its
// clients: the components that keep something made from it, then the actors (one snapshot
// message), then every client (its lists may have changed).
void gateway_components::tell_of_reloads() {
    live.tell(downstream.table()); // server.sessions
    live.tell(guards);             // the limits' leases
    live.tell(health);             // a checker over the new clients
    live.tell([this](const federation_view& v) {
        server.set_max_body(static_cast<std::size_t>(v.snap->doc->server.max_body_bytes));
    });
    live.tell([this](const federation_view& v) { accounts.use(*v.snap->doc); });
    live.tell([this](const federation_view& v) { follow_upstreams(traffic, *v.snap); });
    live.tell([this](const federation_view& v) { warm_up(v); });
    live.tell([this](const federation_view& v) {
        // The supervisor owns the snapshot and broadcasts it to the actors that route on it;
        // the first io thread tells it for all (the others adopt the same snapshot).
        if (parts.shard.index != 0)
            return;
        if (parts.supervisor)
            caf::anon_send(parts.supervisor, actors::reload_snapshot{v.snap, v.boards()});
        else
            for (const auto& router : actors()->routers)
                caf::anon_send(router, actors::replace_snapshot{v.snap});
    });
    live.tell([this](const federation_view&) {
        for (auto method :
             {"notifications/tools/list_changed", "notifications/prompts/list_changed",
              "notifications/resources/list_changed"})
            list_changes.announce(method);
    });
}

std::size_t gateway_components::take_clients(const federation_view& next) {
    const auto& now = *live;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < now.size(); ++i) {
        if (next.index_of(*now.entry(i))) {
            ++kept;
            continue;
        }
        // Retired: its calls in flight finish (bounded by its request timeout), then its
        // streams and bridged sessions end. A client never made here has none.
        if (auto* old = now.made(i)) {
            old->retire(std::chrono::milliseconds(old->config().timeouts.request_ms));
            keeper.tell(actors::bridge_upstream_gone{old->config().id});
            requests.server_requests().forget_upstream(old->config().id);
        }
    }
    definitions->use(*next.snap->doc); // before a new client lists its tools
    for (std::size_t i = 0; i < next.size(); ++i) {
        if (const auto& c = next.made_ptr(i))
            wire(c);
        next.entry(i)->facts->judge_again(next.snap->version);
    }
    return kept;
}

client_maker gateway_components::maker() {
    if (parts.shard.index == 0)
        return {};
    return [this](const federation_view& v, std::size_t i) { return first_use.make(v, i); };
}

namespace {

// At most this many upstream handshakes at once when gate starts or reloads: a thousand
// upstreams do not crowd the io thread with a thousand connects that clients' first calls
// would wait behind.
constexpr std::size_t warm_up_at_once = 32;

// One upstream's root session opened, and said.
asio::awaitable<void> open_root_session(std::shared_ptr<upstream_client> client) {
    auto r = co_await client->sessions().initialize_result({});
    const auto& id = client->config().id;
    if (auto* f = std::get_if<upstream_failure>(&r)) {
        spdlog::warn("upstream {} not reachable yet: {}", id, f->message);
        co_return;
    }
    const auto& init = std::get<boost::json::object>(r);
    std::string name = "?", version = "?";
    if (auto* info = init.if_contains("serverInfo"); info && info->is_object()) {
        if (auto* n = info->as_object().if_contains("name"); n && n->is_string())
            name = n->as_string();
        if (auto* v = info->as_object().if_contains("version"); v && v->is_string())
            version = v->as_string();
    }
    spdlog::info("upstream {} ready: {} {}", id, name, version);
}

} // namespace

void gateway_components::warm_up(const federation_view& view) {
    // Each upstream's root session is opened now rather than by the first client request, so
    // an operator sees at start (and after a reload) which upstreams answer. By the first io
    // thread only: the others open theirs at their first call there, so N threads cost one
    // handshake per upstream at start, and memory per upstream grows only with the threads
    // that call it (docs/io-threads.md).
    if (parts.shard.index != 0)
        return;
    auto due = std::make_shared<std::vector<std::shared_ptr<upstream_client>>>();
    for (std::size_t i = 0; i < view.size(); ++i) {
        const auto& client = view.client_at(i);
        if (client->per_caller()) {
            // No session of gate's own: the first caller opens one with its credential.
            spdlog::info("upstream {} takes each caller's credential ({}): its sessions open "
                         "with their first call",
                         client->config().id, client->config().auth.strategy);
            continue;
        }
        due->push_back(client);
    }
    auto next = std::make_shared<std::size_t>(0);
    auto round = ++*warm_up_round_;
    for (std::size_t w = 0; w < std::min(warm_up_at_once, due->size()); ++w)
        asio::co_spawn(
            io,
            [due, next, round, current = warm_up_round_]() -> asio::awaitable<void> {
                while (*next < due->size() && *current == round)
                    co_await open_root_session((*due)[(*next)++]);
            },
            asio::detached);
}

void gateway_components::join_peers(std::shared_ptr<const io_peers> all) {
    peers_ = std::move(all);
    count_other_threads = [this]() -> asio::awaitable<thread_counts> {
        thread_counts sum;
        for (auto& counts : co_await peers_->each_other_answer(this, [](gateway_components& c) {
                 return counts_of(c.live, c.downstream.table(), c.guards.budgets());
             }))
            sum.add(std::move(counts));
        co_return sum;
    };
    views.merge_from([this]() {
        return peers_->each_other_answer(this, [](gateway_components& c) {
            return std::make_shared<const traffic_history>(c.traffic);
        });
    });
    list_changes.also_tell([this](const std::string& method) {
        peers_->each_other(
            this, [method](gateway_components& other) { other.list_changes.announce(method); });
    });
}

void gateway_components::account_news(const accounts::account_event& e) {
    stats.account_event(e.upstream.empty() ? std::string("*") : e.upstream, e.kind);
    actors::audit_event a;
    a.time = std::chrono::system_clock::now();
    a.method = "account." + std::string(e.kind);
    if (!e.upstream.empty())
        a.upstream = e.upstream;
    if (!e.principal.empty()) {
        auto split = e.principal.find('\n');
        a.issuer = e.principal.substr(0, split);
        a.principal = split == std::string::npos ? std::string() : e.principal.substr(split + 1);
    }
    if (!e.by.empty())
        a.name = e.by;
    bool failed = e.kind == "loginFailed" || e.kind == "refreshFailed" || e.kind == "refused" ||
                  e.kind == "grantRevokeFailed";
    a.outcome = failed ? protocol::outcome::error : protocol::outcome::ok;
    if (!e.error.empty())
        a.error = e.error;
    sinks.audit(std::move(a));
}

void gateway_components::share_accounts(const config::document& d) {
    if (!accounts.in_use())
        return;
    if (!d.server.vault_key_ref)
        throw std::runtime_error(
            "server.vault.keyRef: a user-account upstream with a shared store needs the key users' "
            "tokens are sealed with there (REDIS_URL is set); they are never kept there in clear");
    std::vector<protocol::sealing_key> keys;
    for (const auto& ref : {d.server.vault_key_ref, d.server.vault_previous_key_ref}) {
        const char* text = ref ? std::getenv(ref->c_str()) : nullptr;
        auto key = text ? protocol::read_sealing_key(text)
                        : std::variant<protocol::sealing_key, std::string>("unset");
        if (auto* k = std::get_if<protocol::sealing_key>(&key))
            keys.push_back(std::move(*k));
        else if (ref == d.server.vault_key_ref)
            throw std::runtime_error("server.vault.keyRef: the environment variable " + *ref + " " +
                                     std::get<std::string>(key));
    }
    accounts.share_through(fleet, std::move(keys));
}

void gateway_components::wire(const std::shared_ptr<upstream_client>& client) {
    client->health().start();
    client->keep_accounts_in(desk);
    client->lists().watch_definitions(definitions);
    if (fleet)
        client->guards().share_through(fleet);
    if (parts.tap)
        client->sender().record_through(parts.tap);
    client->observe(std::make_unique<session_traffic>(upstream_news, client.get()));
}

void gateway_components::lean_on(gateway_components& first) {
    if (tokens && first.tokens)
        tokens->lean_on(*first.tokens, first.io.get_executor());
    if (authenticator && first.authenticator)
        authenticator->ask_through(*first.authenticator, first.io.get_executor());
    accounts.stand_aside();
    account_relay =
        std::make_unique<accounts::account_relay>(first.accounts, first.io.get_executor());
    desk = account_relay.get();
    logins.ask(*desk);
    health.ask_through(first.health, first.io.get_executor());
    live->for_each_made([this](upstream_client& c) { c.keep_accounts_in(desk); });
}

} // namespace gate::gateway::program
