#include "gateway/program/gateway_host.hpp"

#include "actors/message_types.hpp"
#include "actors/openssl_thread_state.hpp"
#include "actors/supervision/supervisor.hpp"
#include "gateway/fleet/fleet_store.hpp"
#include "gateway/operations/batch_poster.hpp"
#include "gateway/operations/traffic_tap.hpp"
#include "gateway/program/discovery_poller.hpp"
#include "gateway/program/gateway.hpp"
#include "gateway/upstream/upstream_credential.hpp"
#include "process/service_manager.hpp"
#include "process/version.hpp"

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/error.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <cstdlib>
#include <spdlog/spdlog.h>
#include <stdexcept>
#include <utility>

namespace gate::gateway::program {

namespace {

// Scheduler settings measured in DESIGN.md §3: no 50 µs polling sleeps, one worker per core.
caf::actor_system_config& tuned(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("stealing"));
    cfg.set("scheduler.max-threads", static_cast<size_t>(2));
    cfg.set("work-stealing.moderate-poll-attempts", static_cast<size_t>(0));
    cfg.set("work-stealing.relaxed-sleep-duration", caf::timespan{std::chrono::milliseconds(100)});
    cfg.set("logger.verbosity", caf::atom("quiet"));
    cfg.add_thread_hook<actors::openssl_thread_state>();
    actors::add_message_types(cfg);
    return cfg;
}

// server.redisUrl, else the REDIS_URL environment variable; neither: no shared store.
std::optional<std::string> shared_store_url(const config::document& doc) {
    if (doc.server.redis_url)
        return doc.server.redis_url;
    if (const char* env = std::getenv("REDIS_URL"); env && *env)
        return std::string(env);
    return std::nullopt;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines)
        out += (out.empty() ? "" : "; ") + l;
    return out;
}

// The fleet's shared store, if the document or the environment names one, and the cursor key
// the fleet shares.
struct store_membership {
    std::optional<transport::redis_endpoint> store;
    std::optional<protocol::cursor_codec::key_type> cursor_key;
};

// The fleet's shared store must answer before gate serves (spec Errors rule 3): throws
// std::runtime_error when it does not. The URL may carry a password (from REDIS_URL): only its
// display form is ever printed.
store_membership join_shared_store(const config::document& doc) {
    store_membership out;
    auto url = shared_store_url(doc);
    if (!url)
        return out;
    auto parsed = transport::parse_redis_url(*url);
    if (auto* why = std::get_if<std::string>(&parsed))
        throw std::runtime_error(std::string("the shared store URL (") +
                                 (doc.server.redis_url ? "server.redisUrl" : "REDIS_URL") +
                                 ") is not usable: " + *why);
    auto& ep = std::get<transport::redis_endpoint>(parsed);
    auto membership = join_fleet(ep);
    if (auto* why = std::get_if<std::string>(&membership))
        throw std::runtime_error("the shared store " + ep.display + " does not answer: " + *why);
    out.cursor_key = std::get<fleet_membership>(membership).cursor_key;
    spdlog::info("shared store {}: rate limits, budgets, breakers, tasks, jtis and cursors "
                 "are shared with every gate instance that uses it",
                 ep.display);
    out.store = std::move(ep);
    return out;
}

// Where gate listens and what it serves, then what authentication and authorization mean for
// this document, said once at start (docs/security.md): an operator reading the log knows
// whether the gateway is open.
void log_serving(const std::string& host, std::uint16_t port, const config::document& doc) {
    spdlog::info("gate {} listening on http://{}:{}{} ({} upstream{}, {} mode)",
                 process::gate_release,
                 host.find(':') != std::string::npos ? "[" + host + "]" : host, port,
                 doc.server.mcp_path, doc.upstreams.size(), doc.upstreams.size() == 1 ? "" : "s",
                 doc.passthrough() ? "passthrough" : "namespaced");
    std::string who = doc.auth.required
                          ? "callers need a Bearer token from " +
                                std::to_string(doc.auth.issuers.size()) + " trusted issuer" +
                                (doc.auth.issuers.size() == 1 ? "" : "s")
                          : "auth disabled: every caller is anonymous";
    std::string allowed = !doc.policy ? "no policy: every caller may invoke everything"
                                      : "policy: " + std::to_string(doc.policy->rules.size()) +
                                            " rule" + (doc.policy->rules.size() == 1 ? "" : "s") +
                                            ", default " + doc.policy->default_decision;
    spdlog::info("{}; {}", who, allowed);
}

} // namespace

struct gateway_host::impl {
    std::shared_ptr<const config::document> doc;
    // The io_context outlives the actor system so no bridged reply posts into a dead context.
    boost::asio::io_context io{1};
    caf::actor_system_config cfg;
    caf::actor_system sys{tuned(cfg)};
    // The keeper decides which bridged sessions end; the gateway (on the io thread) ends them.
    std::atomic<gateway*> bridged_gateway{nullptr};
    actors::supervisor_actor supervisor;
    std::shared_ptr<actors::actor_directory> directory;
    std::optional<gateway> gw;
    actors::recorder_actor recorder; // with --record
    std::shared_ptr<traffic_tap> tap;
    // The document as configured (discovery merges into it); `doc` is the one in force.
    std::shared_ptr<const config::document> configured;
    std::optional<discovery_poller> discovery;
    std::shared_ptr<discovery_status> discovery_state;

    // Every document that goes live passes here: its secrets, then the gateway's swap.
    std::optional<std::string> apply(std::shared_ptr<const config::document> next,
                                     std::string_view source) {
        if (auto missing = missing_secrets(*next, std::getenv); !missing.empty())
            return "secrets missing from the environment: " + joined(missing);
        process::notify_reloading();
        auto refused = gw->reload(next, source);
        if (!refused)
            doc = std::move(next);
        process::notify_ready("listening on port " + std::to_string(port));
        return refused;
    }

    // Set on the io thread when the supervisor stopped on its own (gateway_host::failure).
    std::optional<std::string> failure;
    bool draining = false;

    void drain(std::chrono::steady_clock::duration bound) {
        if (std::exchange(draining, true))
            return;
        process::notify_stopping();
        discovery->stop();
        gw->drain(bound, [this] { flush_then_stop(flush_bound); });
    }

    // Our own shutdown (~impl) stops the supervisor with user_shutdown; any other end is a
    // failure the program exits on. The functor runs on the supervisor's thread: the io
    // thread takes it from there (a handler posted while ~impl runs is never run, and the
    // io_context outlives the actor system).
    void watch_supervisor() {
        auto ptr = caf::actor_cast<caf::strong_actor_ptr>(supervisor);
        ptr->get()->attach_functor([this](const caf::error& reason) {
            if (reason == caf::make_error(caf::exit_reason::user_shutdown))
                return;
            boost::asio::post(io, [this, why = caf::to_string(reason)] { supervisor_lost(why); });
        });
    }
    void supervisor_lost(const std::string& why) {
        failure = why;
        spdlog::critical("the supervisor stopped ({}) and its actors with it: gate stops serving "
                         "and exits with status {} so its service manager restarts it",
                         why, lost_status);
        drain(lost_drain_bound);
    }

    // After the drain: what the audit and span sinks hold goes out (bounded), then the io
    // stops.
    void flush_then_stop(std::chrono::steady_clock::duration bound) {
        gw->feed_sinks(); // what the last requests left queued goes before the flush
        if (tap)
            tap->feed();
        auto actors = directory->load();
        int waiting = (actors->audit ? 1 : 0) + (actors->spans ? 1 : 0) + (recorder ? 1 : 0);
        if (waiting == 0) {
            io.stop();
            return;
        }
        auto timer = std::make_shared<boost::asio::steady_timer>(io, bound);
        auto left = std::make_shared<int>(waiting);
        auto finish = [this, timer] {
            if (io.stopped())
                return;
            timer->cancel();
            io.stop();
        };
        timer->async_wait([finish](boost::system::error_code ec) {
            if (!ec) {
                spdlog::warn("audit events or spans not delivered within the shutdown bound; "
                             "what the sinks still held is lost");
                finish();
            }
        });
        auto flushed = [this, left, finish] {
            return actors::batch_flush{
                actors::reply_to<bool>([this, left, finish](std::optional<bool>) {
                    boost::asio::post(io, [left, finish] {
                        if (--*left == 0)
                            finish();
                    });
                })};
        };
        if (actors->audit)
            caf::anon_send(actors->audit.sink(), flushed());
        if (actors->spans)
            caf::anon_send(actors->spans, flushed());
        if (recorder)
            caf::anon_send(recorder, flushed());
    }
    std::uint16_t port = 0;

    // gate --record: the recorder actor, and the tap the gateway feeds it through.
    void record(const actors::record_target& target, gateway_parts& parts) {
        auto backlog = std::make_shared<std::atomic<std::int64_t>>(0);
        auto tally = std::make_shared<actors::delivery_tally>();
        recorder = spawn_recorder(sys, target, backlog, tally);
        parts.tap = std::make_shared<traffic_tap>(io, recorder, backlog, tally);
        tap = parts.tap;
        spdlog::info("recording the traffic to {} (rotated to {}.1 at {} bytes)", target.path,
                     target.path, target.max_bytes);
    }

    ~impl() {
        bridged_gateway = nullptr;
        gw.reset();
        caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown); // and its actors
        if (recorder)
            caf::anon_send_exit(recorder, caf::exit_reason::user_shutdown);
    }
};

gateway_host::gateway_host(std::shared_ptr<const config::document> doc, options opt)
    : impl_(std::make_unique<impl>()) {
    auto& i = *impl_;
    i.doc = doc;
    if (auto missing = missing_secrets(*doc, std::getenv); !missing.empty())
        throw std::runtime_error("secrets missing from the environment: " + joined(missing));
    auto [shared_store, cursor_key] = join_shared_store(*doc);
    auto snap = actors::make_snapshot(doc, 1);
    actors::supervised what;
    what.snap = snap;
    what.audit = doc->audit;
    what.audit_outlet_.post = make_batch_poster(i.io);
    what.span_outlet_.post = what.audit_outlet_.post;
    what.span_outlet_.version = std::string(process::gate_version);
    auto audit_tally = what.audit_outlet_.tally;
    auto span_tally = what.span_outlet_.tally;
    i.discovery_state = std::make_shared<discovery_status>();
    what.cursor_key = cursor_key;
    what.retire = [this](std::vector<actors::retired_bridge> gone) {
        boost::asio::post(impl_->io, [this, gone = std::move(gone)]() mutable {
            if (auto* g = impl_->bridged_gateway.load())
                g->retire_bridges(std::move(gone));
        });
    };
    i.directory = std::make_shared<actors::actor_directory>();
    auto supervision = what.tally;
    i.supervisor = spawn_supervisor(i.sys, std::move(what), i.directory);
    i.watch_supervisor();
    gateway_parts parts{i.directory,
                        snap,
                        i.supervisor,
                        opt.fault_hooks,
                        std::move(shared_store),
                        cursor_key.value_or(protocol::cursor_codec::key_type{}),
                        std::move(audit_tally),
                        i.discovery_state,
                        std::move(span_tally),
                        nullptr,
                        std::move(supervision)};
    if (opt.record)
        i.record(*opt.record, parts);
    i.gw.emplace(i.io, std::move(parts));
    i.bridged_gateway = &*i.gw;
    try {
        i.port = i.gw->listen(opt.host, opt.port);
    } catch (const std::exception& e) {
        throw std::runtime_error("cannot listen on " + opt.host + ":" + std::to_string(opt.port) +
                                 ": " + e.what());
    }
    log_serving(opt.host, i.port, *doc);
    i.configured = doc;
    i.discovery.emplace(
        i.io, [&i](auto merged) { return i.apply(std::move(merged), "discovery"); },
        [&i](std::string_view outcome, std::size_t refused) {
            i.gw->count_discovery(outcome, refused);
        },
        i.discovery_state);
    i.discovery->configure(doc);
}

gateway_host::~gateway_host() = default;

std::uint16_t gateway_host::port() const {
    return impl_->port;
}

boost::asio::io_context& gateway_host::io() {
    return impl_->io;
}

const config::document& gateway_host::document() const {
    return *impl_->doc;
}

std::optional<std::string> gateway_host::reload(std::shared_ptr<const config::document> next) {
    auto& i = *impl_;
    // The upstreams discovery serves join the new document, validated with it.
    auto merged = i.discovery->merged(next);
    if (!merged.doc)
        return "the discovered upstreams do not fit the new document: " +
               config::one_line(merged.errors);
    auto refused = i.apply(merged.doc, "reload");
    if (!refused) {
        i.configured = next;
        i.discovery->configure(std::move(next));
    }
    return refused;
}

void gateway_host::drain(std::chrono::steady_clock::duration bound) {
    impl_->drain(bound);
}

void gateway_host::definitions_lock(std::function<void(bool, std::string)> done) {
    boost::asio::post(io(), [this, done = std::move(done)]() mutable {
        impl_->gw->definitions_lock(std::move(done));
    });
}

const std::optional<std::string>& gateway_host::failure() const {
    return impl_->failure;
}

} // namespace gate::gateway::program
