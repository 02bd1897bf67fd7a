#include "gateway/program/check_probes.hpp"

#include "gateway/operations/batch_poster.hpp"
#include "gateway/program/check_hints.hpp"
#include "gateway/program/discovery_poller.hpp"
#include "gateway/upstream/upstream_client.hpp"
#include "gateway/upstream/upstream_credential.hpp"
#include "process/version.hpp"
#include "protocol/jose/jwk.hpp"
#include "protocol/otlp_json.hpp"
#include "transport/client/http_fetch.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/redis/redis_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>
#include <memory>
#include <random>

namespace gate::gateway::program::check {

namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;
using ms = std::chrono::milliseconds;

// A try that overran its own bound (a token endpoint's or a TLS handshake's fixed one) is
// settled this long after it.
constexpr auto grace = std::chrono::seconds(1);

ms since(clock::time_point start) {
    return std::chrono::duration_cast<ms>(clock::now() - start);
}

row named(std::string kind, std::string name, std::string target) {
    row r;
    r.kind = std::move(kind);
    r.name = std::move(name);
    r.target = std::move(target);
    return r;
}

row down(row r, std::string detail, std::string hint) {
    r.status = "down";
    r.detail = scrubbed(detail);
    r.hint = scrubbed(hint);
    return r;
}

row ok(row r, std::string detail) {
    r.status = "ok";
    r.detail = scrubbed(detail);
    r.hint.clear();
    return r;
}

// The rows of one run: each try settles its own, or its watchdog does past the bound; the io
// loop stops once every row is settled.
class runner {
public:
    explicit runner(ms timeout) : timeout_(timeout) {}

    asio::io_context& io() { return io_; }
    ms timeout() const { return timeout_; }

    // A row that needs no try (a missing secret).
    void add(row done) {
        rows_.push_back(std::move(done));
        settled_.push_back(true);
    }

    void start(row pending, asio::awaitable<row> attempt) {
        auto i = rows_.size();
        rows_.push_back(pending);
        settled_.push_back(false);
        ++open_;
        auto started = clock::now();
        asio::co_spawn(io_, std::move(attempt),
                       [this, i, started, pending](std::exception_ptr e, row r) {
                           if (e)
                               r = down(pending, "the try failed inside gate", "report it");
                           r.took = since(started);
                           settle(i, std::move(r));
                       });
        auto watch = std::make_shared<asio::steady_timer>(io_, timeout_ + grace);
        watch->async_wait([this, i, watch, pending](boost::system::error_code ec) {
            if (ec)
                return;
            auto r = down(pending, "no answer within " + std::to_string(timeout_.count()) + " ms",
                          network_hint("timeout", pending.target, "it", timeout_));
            r.took = timeout_ + grace;
            settle(i, std::move(r));
        });
        watches_.push_back(std::move(watch));
    }

    // Keeps a client alive for the run, closed when it ends.
    void keep(std::shared_ptr<gate::gateway::upstream_client> c) {
        clients_.push_back(std::move(c));
    }

    std::vector<row> run() {
        if (open_ > 0)
            io_.run();
        for (auto& c : clients_)
            c->close();
        for (auto& w : watches_)
            w->cancel();
        return rows_;
    }

private:
    void settle(std::size_t i, row r) {
        if (settled_[i])
            return;
        settled_[i] = true;
        rows_[i] = std::move(r);
        if (--open_ == 0)
            io_.stop();
    }

    asio::io_context io_{1};
    ms timeout_;
    std::vector<row> rows_;
    std::vector<bool> settled_;
    std::size_t open_ = 0;
    std::vector<std::shared_ptr<asio::steady_timer>> watches_;
    std::vector<std::shared_ptr<gate::gateway::upstream_client>> clients_;
};

// --- upstreams ---

failure kind_of(const gate::gateway::upstream_failure& f) {
    using k = gate::gateway::upstream_failure::kind;
    if (f.what == k::connect_error && !f.upstream_at_fault)
        return failure::credential; // its token endpoint failed, not the upstream
    switch (f.what) {
    case k::timeout:
        return failure::timeout;
    case k::http_status: // 200 with no JSON-RPC answer in it: not an MCP server
        return f.status >= 200 && f.status < 300 ? failure::content : failure::status;
    case k::protocol:
        return failure::content;
    default:
        return failure::network;
    }
}

std::string text_of(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// "everything 2.0.0, MCP 2025-06-18": who answered the handshake.
std::string identity_of(const json::object& init) {
    std::string who;
    if (auto* info = init.if_contains("serverInfo"); info && info->is_object())
        who = text_of(info->as_object(), "name") + " " + text_of(info->as_object(), "version");
    auto revision = text_of(init, "protocolVersion");
    return (who.empty() ? "an MCP server" : who) +
           (revision.empty() ? std::string() : ", MCP " + revision);
}

asio::awaitable<row> try_upstream(std::shared_ptr<gate::gateway::upstream_client> client, row r,
                                  ms timeout) {
    gate::gateway::call_context ctx;
    ctx.timeout = timeout;
    ctx.use = actors::guard_use::upkeep; // no rate-limit slot: one handshake, not a client's call
    auto got = co_await client->sessions().initialize_result(ctx);
    if (auto* f = std::get_if<gate::gateway::upstream_failure>(&got))
        co_return down(
            r, f->message,
            upstream_hint(client->config(), r.target, kind_of(*f), f->status, f->message, timeout));
    co_return ok(r, "MCP handshake answered by " + identity_of(std::get<json::object>(got)));
}

// An upstream that takes each caller's credential, which a check has none of: its handshake
// sent without one, as gate's health probe sends it, judged by judge_per_caller. A refused
// connection, an unknown host, TLS or a timeout is down like any upstream's.
asio::awaitable<row> try_per_caller(std::shared_ptr<gate::gateway::upstream_client> client, row r,
                                    ms timeout) {
    const auto& u = client->config();
    auto got = co_await client->health().handshake_without_credential(timeout);
    row out;
    if (auto* f = std::get_if<gate::gateway::upstream_failure>(&got)) {
        out = down(r, f->message,
                   upstream_hint(u, r.target, kind_of(*f), f->status, f->message, timeout));
    } else {
        auto& h = std::get<gate::gateway::bare_handshake>(got);
        auto v = judge_per_caller(u, r.target, h.status, h.challenge,
                                  h.result ? identity_of(*h.result) : "", timeout);
        out = v.up ? ok(r, v.detail) : down(r, v.detail, v.hint);
    }
    out.unchecked = scrubbed(per_caller_unchecked(u));
    co_return out;
}

// A token-exchange upstream's token endpoint, which a check has no caller's token to exchange
// at: the grant type alone, with no client credentials (the secret stays home) and no subject
// token, so nothing is exchanged; an OAuth error answer shows it reachable (judge_token_endpoint).
asio::awaitable<row> try_token_endpoint(asio::any_io_executor ex, config::upstream u, row r,
                                        ms timeout) {
    transport::fetch_request req;
    req.url = u.auth.token_endpoint;
    req.method = "POST";
    req.content_type = "application/x-www-form-urlencoded";
    req.body = token_endpoint_probe_form();
    req.timeout = timeout;
    req.max_body = 64 * 1024; // as gate's own token requests
    auto answer = co_await transport::http_fetch(ex, std::move(req));
    row out;
    if (auto* why = std::get_if<std::string>(&answer)) {
        auto hint = network_hint(*why, r.target, "the token endpoint", timeout);
        out = down(r, *why, hint.empty() ? "check auth.tokenEndpoint (" + r.target + ")" : hint);
    } else {
        auto& a = std::get<transport::fetch_answer>(answer);
        auto v = judge_token_endpoint(u, r.target, static_cast<int>(a.status), a.body);
        out = v.up ? ok(r, v.detail) : down(r, v.detail, v.hint);
    }
    out.unchecked = scrubbed(token_endpoint_unchecked(u));
    co_return out;
}

// The upstream's own copy for one endpoint, bounded by the check's timeout.
config::upstream bounded(config::upstream u, const std::string& url, ms timeout) {
    u.urls = {url};
    u.health_check_interval_ms.reset();
    u.timeouts.connect_ms = std::min<std::int64_t>(u.timeouts.connect_ms, timeout.count());
    u.timeouts.request_ms = std::min<std::int64_t>(u.timeouts.request_ms, timeout.count());
    return u;
}

// Why a secret of `pointer`'s (an upstream's: "/upstreams/2/") is missing, or "".
std::string missing_under(const std::vector<std::string>& missing, const std::string& pointer) {
    std::string out;
    for (const auto& m : missing)
        if (m.starts_with(pointer))
            out += (out.empty() ? "" : "; ") + m;
    return out;
}

void check_upstreams(runner& run, const config::document& doc, std::size_t from,
                     const std::vector<std::string>& missing) {
    for (std::size_t i = from; i < doc.upstreams.size(); ++i) {
        const auto& u = doc.upstreams[i];
        for (std::size_t e = 0; e < u.urls.size(); ++e) {
            auto r = named("upstream", u.id, without_userinfo(u.urls[e]));
            if (u.urls.size() > 1)
                r.name += "[" + std::to_string(e) + "]"; // its place in `urls`
            if (u.discovered)
                r.name += " (discovered)";
            if (auto why = missing_under(missing, "/upstreams/" + std::to_string(i) + "/");
                !why.empty()) {
                run.add(down(r, why,
                             "set it in the environment gate runs with (the unit's "
                             "EnvironmentFile), then check again"));
                continue;
            }
            auto client = gate::gateway::upstream_client::make(
                run.io().get_executor(), bounded(u, u.urls[e], run.timeout()));
            run.keep(client);
            run.start(r, gate::gateway::per_caller(u.auth)
                             ? try_per_caller(client, r, run.timeout())
                             : try_upstream(client, r, run.timeout()));
        }
        // client-credentials needs no row of its own: its handshake fetched a real token.
        if (u.auth.strategy == "token-exchange") {
            auto r = named("token", u.id + (u.discovered ? " (discovered)" : ""),
                           without_userinfo(u.auth.token_endpoint));
            run.start(r, try_token_endpoint(run.io().get_executor(), u, r, run.timeout()));
        }
    }
}

// --- issuers' key sets ---

asio::awaitable<row> try_key_set(asio::any_io_executor ex, std::shared_ptr<asio::ssl::context> tls,
                                 row r, ms timeout) {
    transport::fetch_request req;
    req.url = r.target;
    req.timeout = timeout;
    req.max_body = 256 * 1024; // key_set_source's bound
    auto answer = co_await transport::http_fetch(ex, std::move(req), std::move(tls));
    if (auto* why = std::get_if<std::string>(&answer))
        co_return down(r, *why, key_set_hint(r.target, failure::network, 0, *why, timeout));
    auto& a = std::get<transport::fetch_answer>(answer);
    if (a.status != 200) {
        auto what = r.target + " answered HTTP " + std::to_string(a.status);
        co_return down(
            r, what,
            key_set_hint(r.target, failure::status, static_cast<int>(a.status), what, timeout));
    }
    auto parsed = protocol::jose::parse_key_set(a.body);
    if (auto* why = std::get_if<std::string>(&parsed))
        co_return down(r, r.target + ": " + *why,
                       key_set_hint(r.target, failure::content, 200, *why, timeout));
    auto n = std::get<protocol::jose::key_set>(parsed).keys.size();
    co_return ok(r, "key set with " + std::to_string(n) + " key" + (n == 1 ? "" : "s"));
}

void check_issuers(runner& run, const config::document& doc,
                   const std::shared_ptr<asio::ssl::context>& tls) {
    for (const auto& i : doc.auth.issuers) {
        auto r = named("issuer", i.issuer, without_userinfo(i.jwks_uri));
        run.start(r, try_key_set(run.io().get_executor(), tls, r, run.timeout()));
    }
    if (const auto& ema = doc.auth.ema) {
        auto r = named("issuer", ema->idp_issuer + " (ema)", without_userinfo(ema->idp_jwks_uri));
        run.start(r, try_key_set(run.io().get_executor(), tls, r, run.timeout()));
    }
}

// --- the shared store ---

asio::awaitable<row> try_store(std::shared_ptr<transport::redis_client> redis, row r,
                               std::string source, ms timeout) {
    auto reply = co_await redis->command({"PING"});
    redis->close();
    if (auto* why = std::get_if<std::string>(&reply))
        co_return down(r, *why,
                       store_hint(r.target, source,
                                  why->find("within") != std::string::npos ? failure::timeout
                                                                           : failure::network,
                                  *why, timeout));
    auto& v = std::get<transport::redis_value>(reply);
    if (v.type == transport::redis_value::kind::error)
        co_return down(r, "Redis answered PING with an error: " + v.text,
                       store_hint(r.target, source, failure::content, v.text, timeout));
    if (v.text != "PONG")
        co_return down(r, "Redis answered PING with something other than PONG",
                       store_hint(r.target, source, failure::content, v.text, timeout));
    co_return ok(r, "PING answered PONG");
}

void check_store(runner& run, const config::document& doc, const env_reader& getenv) {
    // server.redisUrl, else REDIS_URL: as the gateway host finds its shared store.
    std::string source = doc.server.redis_url ? "/server/redisUrl" : "REDIS_URL";
    std::optional<std::string> url = doc.server.redis_url;
    if (!url)
        if (const char* env = getenv("REDIS_URL"); env && *env)
            url = env;
    if (!url)
        return;
    auto r = named("store", source, "(not shown: it may hold a password)");
    auto parsed = transport::parse_redis_url(*url);
    if (auto* why = std::get_if<std::string>(&parsed)) {
        run.add(down(r, "not a usable Redis URL: " + *why, "give a redis://host:port/db URL"));
        return;
    }
    auto& ep = std::get<transport::redis_endpoint>(parsed);
    r.target = ep.display; // never the password
    auto redis =
        std::make_shared<transport::redis_client>(run.io().get_executor(), ep, run.timeout());
    run.start(r, try_store(redis, r, source, run.timeout()));
}

// --- the receivers: audit webhooks and the OTLP collector ---

asio::awaitable<row> try_receiver(asio::any_io_executor ex, std::shared_ptr<asio::ssl::context> tls,
                                  transport::fetch_request req, row r, bool otlp, ms timeout) {
    req.method = "POST";
    req.timeout = timeout;
    req.max_body = 64 * 1024; // as the sinks' poster: the answer is not read
    auto answer = co_await transport::http_fetch(ex, std::move(req), std::move(tls));
    if (auto* why = std::get_if<std::string>(&answer))
        co_return down(r, *why, receiver_hint(otlp, r.target, failure::network, 0, *why, timeout));
    auto status = std::get<transport::fetch_answer>(answer).status;
    // Judged as the sink judges a batch's answer: only 2xx delivers.
    if (gate::gateway::classify_batch_status(status) != actors::batcher::result::delivered) {
        auto what = r.target + " answered HTTP " + std::to_string(status);
        co_return down(r, what,
                       receiver_hint(otlp, r.target, failure::status, static_cast<int>(status),
                                     what, timeout));
    }
    co_return ok(r, std::string(otlp ? "an export with no spans" : "an empty batch ([])") +
                        " answered HTTP " + std::to_string(status));
}

std::string random_key() {
    std::random_device rd;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
    return buf;
}

void check_receivers(runner& run, const config::document& doc,
                     const std::shared_ptr<asio::ssl::context>& tls) {
    if (doc.audit)
        for (std::size_t i = 0; i < doc.audit->sinks.size(); ++i) {
            const auto& s = doc.audit->sinks[i];
            if (s.type != "webhook")
                continue;
            transport::fetch_request req;
            req.url = s.url;
            req.headers.assign(s.headers.begin(), s.headers.end());
            // As a batch carries it, so a receiver that deduplicates takes it as one.
            req.headers.emplace_back("Idempotency-Key", "gate-check-" + random_key());
            req.content_type = "application/json";
            req.body = "[]";
            auto r = named("audit", "/audit/sinks/" + std::to_string(i), without_userinfo(s.url));
            run.start(r, try_receiver(run.io().get_executor(), tls, std::move(req), r, false,
                                      run.timeout()));
        }
    if (const auto& t = doc.tracing) {
        // The span sink's own envelope around no spans: a valid ExportTraceServiceRequest.
        auto envelope = protocol::otlp_export_envelope(t->service_name, process::gate_version);
        transport::fetch_request req;
        req.url = t->otlp_endpoint;
        req.content_type = "application/json";
        req.body = envelope.head + "[]" + envelope.tail;
        auto r = named("tracing", "/tracing", without_userinfo(t->otlp_endpoint));
        run.start(
            r, try_receiver(run.io().get_executor(), tls, std::move(req), r, true, run.timeout()));
    }
}

// --- the discovery source ---

// The status in a fetch failure's text ("... answered HTTP 503"), 0 when it names none.
int status_in(std::string_view text) {
    auto at = text.rfind("answered HTTP ");
    if (at == std::string_view::npos)
        return 0;
    int status = 0;
    auto digits = text.substr(at + 14);
    std::from_chars(digits.data(), digits.data() + digits.size(), status);
    return status;
}

// One poll of the source by gate's own poller: its fetch, and its merge of what the source
// serves, validated whole. An applied document's upstreams are tried in turn.
asio::awaitable<row> try_discovery(runner& run, std::shared_ptr<const config::document> doc,
                                   env_reader getenv, row r) {
    auto status = std::make_shared<gate::gateway::discovery_report>();
    std::shared_ptr<const config::document> merged;
    std::string outcome;
    std::size_t refused = 0;
    asio::steady_timer polled(run.io(), clock::time_point::max());
    discovery_poller poller(
        run.io(),
        [&](std::shared_ptr<const config::document> d) -> std::optional<std::string> {
            merged = std::move(d);
            return std::nullopt;
        },
        [&](std::string_view o, std::size_t n) {
            outcome = o;
            refused = n;
            polled.cancel(); // read once the poller has written its status
        },
        status);
    poller.configure(doc);
    boost::system::error_code ec;
    co_await polled.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    poller.stop();
    const auto& d = *doc->discovery;
    const auto problem = status->get().last_problem;
    if (outcome == "error") {
        auto s = status_in(problem);
        auto f = problem.find("is not set") != std::string::npos ? failure::credential
                 : s != 0                                        ? failure::status
                 : problem.find("within") != std::string::npos   ? failure::timeout
                                                                 : failure::network;
        co_return down(r, problem, discovery_hint(d, f, s, problem, run.timeout()));
    }
    if (outcome != "applied" || !merged)
        co_return down(r, "the served document is rejected: " + problem,
                       discovery_hint(d, failure::content, 200, problem, run.timeout()));
    auto found = merged->discovered_count();
    auto detail = "serves " + std::to_string(found) + " upstream" + (found == 1 ? "" : "s");
    if (refused > 0)
        detail += "; " + std::to_string(refused) + " left out by the containment: " + problem;
    check_upstreams(run, *merged, merged->upstreams.size() - found,
                    gate::gateway::missing_secrets(*merged, getenv));
    co_return ok(r, detail);
}

void check_discovery(runner& run, const config::document& doc, const env_reader& getenv) {
    if (!doc.discovery)
        return;
    auto r = named("discovery", "/discovery", without_userinfo(doc.discovery->url));
    auto copy = std::make_shared<const config::document>(doc);
    run.start(r, try_discovery(run, copy, getenv, r));
}

// Missing secrets no other row stands for (the EMA signing key, the decision hook's bearer).
void check_other_secrets(runner& run, const std::vector<std::string>& missing) {
    for (const auto& m : missing) {
        if (m.starts_with("/upstreams/") || m.starts_with("/discovery/"))
            continue;
        auto r = named("secret", m.substr(0, m.find(':')), "");
        run.add(down(r, m,
                     "set it in the environment gate runs with (the unit's "
                     "EnvironmentFile), then check again"));
    }
}

} // namespace

std::vector<row> run_checks(const config::document& doc, std::chrono::milliseconds timeout,
                            const env_reader& getenv) {
    runner run(timeout);
    auto tls = transport::make_client_tls_context();
    auto missing = gate::gateway::missing_secrets(doc, getenv);
    check_upstreams(run, doc, 0, missing);
    check_issuers(run, doc, tls);
    check_store(run, doc, getenv);
    check_receivers(run, doc, tls);
    check_discovery(run, doc, getenv);
    check_other_secrets(run, missing);
    return run.run();
}

} // namespace gate::gateway::program::check
