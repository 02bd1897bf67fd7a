#include "gateway/program/gateway_host.hpp"

#include "actors/message_types.hpp"
#include "actors/openssl_thread_state.hpp"
#include "actors/supervision/supervisor.hpp"
#include "gateway/fleet/fleet_store.hpp"
#include "gateway/operations/batch_poster.hpp"
#include "gateway/operations/traffic_tap.hpp"
#include "gateway/program/cli.hpp"
#include "gateway/program/discovery_poller.hpp"
#include "gateway/program/gateway.hpp"
#include "gateway/program/io_loop.hpp"
#include "gateway/program/io_thread_context.hpp"
#include "gateway/upstream/definition_reports.hpp"
#include "gateway/upstream/upstream_credential.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "process/service_manager.hpp"
#include "process/version.hpp"

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/error.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <cstdlib>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <stdexcept>
#include <thread>
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

// Each io thread's gateway, from the parts they share.
gateway_parts parts_of(const gateway_parts& shared, std::size_t index, std::size_t count,
                       const std::vector<std::shared_ptr<traffic_tap>>& taps) {
    auto p = shared;
    p.shard = {index, count};
    p.tap = taps.empty() ? nullptr : taps[index];
    return p;
}

} // namespace

// One io thread beyond the first (docs/io-threads.md): its context, its gateway, and the
// thread that runs it.
struct io_shard {
    io_shard(std::size_t index, std::chrono::microseconds spin) : index(index), spin(spin) {}
    std::size_t index;
    io_thread_context io{1};
    std::chrono::microseconds spin;
    std::optional<gateway> gw;
    std::thread thread;
    void run() {
        thread = std::thread([this] {
            // Named so an operator's top -H (and the tests) tell the io threads apart.
            auto name = "gate-io-" + std::to_string(index);
            pthread_setname_np(pthread_self(), name.c_str());
            auto work = boost::asio::make_work_guard(io); // until the host stops it
            run_io(io, spin);
        });
    }
    void stop() {
        io.stop();
        if (thread.joinable())
            thread.join();
    }
};

struct gateway_host::impl {
    std::shared_ptr<const config::document> doc;
    // The io threads beyond the first. Their io_contexts outlive the first's: the first
    // thread's acceptor accepts onto theirs (http_server::join), and an accept still pending
    // when it stops is destroyed with the first's context, its socket with the other's service.
    std::vector<std::unique_ptr<io_shard>> shards;
    // The io_contexts outlive the actor system so no bridged reply posts into a dead context.
    io_thread_context io{1};
    caf::actor_system_config cfg;
    caf::actor_system sys{tuned(cfg)};
    // The keeper decides which bridged sessions end; the gateway (on the io thread) ends them.
    std::atomic<gateway*> bridged_gateway{nullptr};
    actors::supervisor_actor supervisor;
    std::shared_ptr<actors::actor_directory> directory;
    std::optional<gateway> gw;
    std::vector<gateway*> others;                   // the other threads', once serve() made them
    actors::recorder_actor recorder;                // with --record
    std::vector<std::shared_ptr<traffic_tap>> taps; // one per io thread
    // The document as configured (discovery merges into it); `doc` is the one in force.
    std::shared_ptr<const config::document> configured;
    std::optional<discovery_poller> discovery;
    std::shared_ptr<discovery_report> discovery_state;

    // Every document that goes live passes here: its secrets, then the gateway's swap, which
    // the other io threads then adopt (the same snapshot).
    std::optional<std::string> apply(std::shared_ptr<const config::document> next,
                                     std::string_view source) {
        if (auto missing = missing_secrets(*next, std::getenv); !missing.empty())
            return "secrets missing from the environment: " + joined(missing);
        process::notify_reloading();
        auto refused = gw->reload(next, source);
        if (!refused) {
            doc = std::move(next);
            for (auto& s : shards)
                boost::asio::post(s->io, [g = &*s->gw, snap = gw->snapshot(),
                                          why = std::string(source)] { g->adopt(snap, why); });
        }
        process::notify_ready("listening on port " + std::to_string(port));
        return refused;
    }

    // Set on the io thread when the supervisor stopped on its own (gateway_host::failure).
    std::optional<std::string> failure;
    bool draining = false;

    // Every io thread drains (each on its own), feeding its sinks what its last requests left;
    // the first then flushes the sinks and stops them all.
    void drain(std::chrono::steady_clock::duration bound) {
        if (std::exchange(draining, true))
            return;
        process::notify_stopping();
        discovery->stop();
        auto left = std::make_shared<std::atomic<std::size_t>>(shards.size() + 1);
        auto drained = [this, left] {
            if (left->fetch_sub(1) == 1)
                boost::asio::post(io, [this] { flush_then_stop(flush_bound); });
        };
        for (std::size_t k = 0; k < shards.size(); ++k)
            boost::asio::post(shards[k]->io, [this, k, g = &*shards[k]->gw, bound, drained] {
                g->drain(bound, [this, k, g, drained] {
                    g->feed_sinks(); // on its own thread, as its taps below
                    if (k + 1 < taps.size())
                        taps[k + 1]->feed();
                    drained();
                });
            });
        gw->drain(bound, [this, drained] {
            gw->feed_sinks(); // what the last requests left queued goes before the flush
            drained();
        });
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

    void stop_io() {
        for (auto& s : shards)
            s->io.stop();
        io.stop();
    }

    // After the drain: what the audit and span sinks hold goes out (bounded), then the io
    // stops.
    void flush_then_stop(std::chrono::steady_clock::duration bound) {
        if (!taps.empty())
            taps.front()->feed(); // this thread's; the others fed theirs as they drained
        auto actors = directory->load();
        int waiting = (actors->audit ? 1 : 0) + (actors->spans ? 1 : 0) + (recorder ? 1 : 0);
        if (waiting == 0) {
            stop_io();
            return;
        }
        auto timer = std::make_shared<boost::asio::steady_timer>(io, bound);
        auto left = std::make_shared<int>(waiting);
        auto finish = [this, timer] {
            if (io.stopped())
                return;
            timer->cancel();
            stop_io();
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

    // gate --record: the recorder actor, and the tap each io thread feeds it through.
    void record(const actors::record_target& target) {
        auto backlog = std::make_shared<std::atomic<std::int64_t>>(0);
        auto tally = std::make_shared<actors::delivery_tally>();
        recorder = spawn_recorder(sys, target, backlog, tally);
        taps.push_back(std::make_shared<traffic_tap>(io, recorder, backlog, tally));
        for (auto& s : shards) {
            taps.push_back(std::make_shared<traffic_tap>(s->io, recorder, backlog, tally));
            taps.back()->share_count(*taps.front());
        }
        spdlog::info("recording the traffic to {} (rotated to {}.1 at {} bytes)", target.path,
                     target.path, target.max_bytes);
    }

    // The bridged sessions the keeper retired, ended on every io thread (each ends its own).
    // Called on an actor's thread: the other threads' gateways as serve() made them, not
    // while ~impl resets them.
    void retire(std::vector<actors::retired_bridge> gone) {
        if (!bridged_gateway.load())
            return;
        for (std::size_t k = 0; k < shards.size() && k < others.size(); ++k)
            boost::asio::post(shards[k]->io, [g = others[k], gone] { g->retire_bridges(gone); });
        boost::asio::post(io, [this, gone = std::move(gone)]() mutable {
            if (auto* g = bridged_gateway.load())
                g->retire_bridges(std::move(gone));
        });
    }

    // What every io thread's gateway shares beyond the actors (docs/io-threads.md).
    void share_among_threads(gateway_parts& parts) {
        parts.stats = std::make_shared<metrics>();
        parts.upstreams = std::make_shared<shared_upstreams>();
        parts.sessions = std::make_shared<session_census>();
        // One set of pins for every thread's lists (a fleet's store agrees them instead, each
        // thread through its own connection to it); a change is audited on the first thread.
        if (!parts.shared_store)
            parts.definitions =
                std::make_shared<definition_reports>(*parts.stats, [this](actors::audit_event e) {
                    boost::asio::post(
                        io, [this, e = std::move(e)]() mutable { gw->audit(std::move(e)); });
                });
    }

    // Each io thread's gateway, grouped; the first listens, the others start on their threads.
    void serve(const gateway_parts& parts, const options& opt) {
        gw.emplace(io, parts_of(parts, 0, opt.io_threads, taps));
        std::vector<gateway*> all{&*gw};
        for (std::size_t k = 0; k < shards.size(); ++k)
            all.push_back(&shards[k]->gw.emplace(shards[k]->io,
                                                 parts_of(parts, k + 1, opt.io_threads, taps)));
        gateway::group(all);
        others.assign(all.begin() + 1, all.end());
        bridged_gateway = &*gw;
        try {
            port = gw->listen(opt.host, opt.port);
        } catch (const std::exception& e) {
            throw std::runtime_error("cannot listen on " + opt.host + ":" +
                                     std::to_string(opt.port) + ": " + e.what());
        }
        for (auto& s : shards) {
            boost::asio::post(s->io, [g = &*s->gw] { g->start(); });
            s->run();
        }
    }

    ~impl() {
        bridged_gateway = nullptr;
        for (auto& s : shards)
            s->stop();
        // What is still suspended goes while every gateway it may point into is alive: the
        // first thread's pending accepts hold sockets of the others' contexts, and another
        // thread's question may be running in the first thread's sources.
        io.abandon_pending();
        for (auto& s : shards)
            s->io.abandon_pending();
        for (auto& s : shards)
            s->gw.reset();
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
    if (opt.io_threads < 1 || opt.io_threads > max_io_threads) // cli.hpp
        throw std::runtime_error("--io-threads must be between 1 and " +
                                 std::to_string(max_io_threads));
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
    i.discovery_state = std::make_shared<discovery_report>();
    what.cursor_key = cursor_key;
    what.retire = [this](std::vector<actors::retired_bridge> gone) {
        impl_->retire(std::move(gone));
    };
    i.directory = std::make_shared<actors::actor_directory>();
    auto supervision = what.tally;
    i.supervisor = spawn_supervisor(i.sys, std::move(what), i.directory);
    i.watch_supervisor();
    for (std::size_t k = 1; k < opt.io_threads; ++k)
        i.shards.push_back(std::make_unique<io_shard>(k, opt.io_spin));
    gateway_parts parts;
    parts.actors = i.directory;
    parts.snap = snap;
    parts.supervisor = i.supervisor;
    parts.fault_hooks = opt.fault_hooks;
    parts.shared_store = std::move(shared_store);
    parts.fleet_cursor_key = cursor_key.value_or(protocol::cursor_codec::key_type{});
    parts.audit_tally = std::move(audit_tally);
    parts.discovery = i.discovery_state;
    parts.span_tally = std::move(span_tally);
    parts.supervision = std::move(supervision);
    if (opt.io_threads > 1)
        i.share_among_threads(parts);
    if (opt.record)
        i.record(*opt.record);
    i.serve(parts, opt);
    log_serving(opt.host, i.port, *doc);
    if (opt.io_threads > 1)
        spdlog::info("{} io threads: each session is answered on the thread that opened it",
                     opt.io_threads);
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
