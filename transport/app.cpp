#include "transport/app.hpp"

#include "actors/supervisor.hpp"
#include "config/load.hpp"
#include "transport/cli.hpp"
#include "transport/fleet_store.hpp"
#include "transport/gateway.hpp"
#include "transport/logging.hpp"
#include "transport/service_manager.hpp"
#include "transport/upstream_credential.hpp"
#include "transport/version.hpp"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <spdlog/spdlog.h>

namespace gate {

namespace {

// Scheduler settings measured in DESIGN.md §3: no 50 µs polling sleeps, one worker per core.
void tune(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("stealing"));
    cfg.set("scheduler.max-threads", static_cast<size_t>(2));
    cfg.set("work-stealing.moderate-poll-attempts", static_cast<size_t>(0));
    cfg.set("work-stealing.relaxed-sleep-duration", caf::timespan{std::chrono::milliseconds(100)});
    cfg.set("logger.verbosity", caf::atom("quiet"));
}

void print_errors(const std::vector<config::error>& errors) {
    for (const auto& e : errors)
        std::fprintf(stderr, "config error at %s: %s\n",
                     e.pointer.empty() ? "(document)" : e.pointer.c_str(), e.reason.c_str());
}

// server.redisUrl, else the REDIS_URL environment variable; neither: no shared store.
std::optional<std::string> shared_store_url(const config::document& doc) {
    if (doc.server.redis_url)
        return doc.server.redis_url;
    if (const char* env = std::getenv("REDIS_URL"); env && *env)
        return std::string(env);
    return std::nullopt;
}

} // namespace

int run_gate(const std::vector<std::string>& args) {
    auto parsed = parse_command_line(args);
    if (auto* err = std::get_if<usage_error>(&parsed)) {
        std::fprintf(stderr, "gate: %s\n\n%s", err->message.c_str(), usage_text().c_str());
        return 2;
    }
    auto& opt = std::get<options>(parsed);
    if (opt.help) {
        std::fputs(usage_text().c_str(), stdout);
        return 0;
    }
    if (opt.version) {
        std::printf("gate %s\n", std::string(gate_release).c_str());
        return 0;
    }
    if (opt.schema) {
        auto text = config::schema_text();
        std::fwrite(text.data(), 1, text.size(), stdout);
        return 0;
    }
    std::string source;
    if (opt.config)
        source = *opt.config;
    else if (const char* env = std::getenv("GATE_CONFIG"))
        source = env;
    else {
        std::fprintf(stderr, "gate: no configuration: pass --config <path> or set GATE_CONFIG\n");
        return 2;
    }
    auto loaded = config::load(source);
    if (!loaded.errors.empty()) {
        print_errors(loaded.errors);
        std::fprintf(stderr, "gate: configuration invalid (%zu error%s)\n", loaded.errors.size(),
                     loaded.errors.size() == 1 ? "" : "s");
        return 1;
    }
    if (opt.validate) {
        std::fprintf(stderr, "gate: configuration valid\n");
        return 0;
    }
    // Secrets are the environment's, not the document's: checked at start (and at every
    // reload), not by --validate, which may run where the secrets are not.
    if (auto missing = transport::missing_secrets(*loaded.doc, std::getenv); !missing.empty()) {
        for (const auto& m : missing)
            std::fprintf(stderr, "config error at %s\n", m.c_str());
        std::fprintf(stderr, "gate: %zu upstream secret%s missing from the environment\n",
                     missing.size(), missing.size() == 1 ? "" : "s");
        return 1;
    }
    setup_logging(opt.log_format, opt.log_level);
    // The fleet's shared store: it must answer PING before gate serves (spec Errors rule 3).
    // The URL may carry a password (from REDIS_URL): only its display form is ever printed.
    std::optional<transport::redis_endpoint> shared_store;
    std::optional<protocol::cursor_codec::key_type> cursor_key;
    if (auto url = shared_store_url(*loaded.doc)) {
        auto parsed = transport::parse_redis_url(*url);
        if (auto* why = std::get_if<std::string>(&parsed)) {
            std::fprintf(stderr, "gate: the shared store URL (%s) is not usable: %s\n",
                         loaded.doc->server.redis_url ? "server.redisUrl" : "REDIS_URL",
                         why->c_str());
            return 1;
        }
        auto& ep = std::get<transport::redis_endpoint>(parsed);
        auto joined = transport::join_fleet(ep);
        if (auto* why = std::get_if<std::string>(&joined)) {
            std::fprintf(stderr, "gate: the shared store %s does not answer: %s\n",
                         ep.display.c_str(), why->c_str());
            return 1;
        }
        cursor_key = std::get<transport::fleet_membership>(joined).cursor_key;
        spdlog::info("shared store {}: rate limits, budgets, breakers, tasks, jtis and cursors "
                     "are shared with every gate instance that uses it",
                     ep.display);
        shared_store = std::move(ep);
    }

    // The io_context outlives the actor system so no bridged reply posts into a dead context.
    boost::asio::io_context io(1);
    caf::actor_system_config cfg;
    tune(cfg);
    caf::actor_system sys{cfg};
    auto snap = make_snapshot(loaded.doc, 1);
    // The keeper decides which bridged sessions end; the gateway (on the io thread) ends them.
    std::atomic<transport::gateway*> bridged_gateway{nullptr};
    supervised what;
    what.snap = snap;
    what.audit = loaded.doc->audit;
    what.cursor_key = cursor_key;
    what.retire = [&io, &bridged_gateway](std::vector<retired_bridge> gone) {
        boost::asio::post(io, [&bridged_gateway, gone = std::move(gone)]() mutable {
            if (auto* g = bridged_gateway.load())
                g->retire_bridges(std::move(gone));
        });
    };
    auto directory = std::make_shared<actor_directory>();
    auto supervisor = spawn_supervisor(sys, std::move(what), directory);
    transport::gateway_parts parts{directory, snap, supervisor, false, {}, {}};
    parts.shared_store = std::move(shared_store);
    if (cursor_key)
        parts.fleet_cursor_key = *cursor_key;
    if (const char* hooks = std::getenv("GATE_TEST_FAULT_HOOKS");
        hooks && hooks == std::string_view("1")) {
        parts.fault_hooks = true;
        spdlog::warn(
            "GATE_TEST_FAULT_HOOKS=1: test-only fault hooks are enabled (POST /_test/...)");
    }
    transport::gateway gw(io, std::move(parts));
    bridged_gateway = &gw;
    std::uint16_t port = 0;
    try {
        port = gw.listen(opt.host, opt.port);
    } catch (const std::exception& e) {
        spdlog::error("cannot listen on {}:{}: {}", opt.host, opt.port, e.what());
        return 1;
    }
    spdlog::info("gate {} listening on http://{}:{}{} ({} upstream{}, {} mode)", gate_release,
                 opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host, port,
                 loaded.doc->server.mcp_path, loaded.doc->upstreams.size(),
                 loaded.doc->upstreams.size() == 1 ? "" : "s",
                 loaded.doc->passthrough() ? "passthrough" : "namespaced");
    // What authentication and authorization mean for this document, said once at start
    // (docs/security.md): an operator reading the log knows whether the gateway is open.
    const auto& doc = *loaded.doc;
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
    // Reload: SIGHUP, or with --watch a change of the file's modification time (polled every
    // 2 s). A document that fails validation or changes a construction-wired section is
    // refused and the running configuration keeps serving.
    auto reload = [&, source](const char* why) {
        auto next = config::load(source);
        if (!next.errors.empty()) {
            for (const auto& e : next.errors)
                spdlog::error("reload rejected ({}): {}: {}", why, e.pointer, e.reason);
            return;
        }
        if (auto missing = transport::missing_secrets(*next.doc, std::getenv); !missing.empty()) {
            for (const auto& m : missing)
                spdlog::error("reload rejected ({}): {}", why, m);
            return;
        }
        notify_reloading();
        if (auto refused = gw.reload(next.doc))
            spdlog::error("reload rejected ({}): {}", why, *refused);
        notify_ready("listening on port " + std::to_string(port));
    };
    boost::asio::signal_set hup(io, SIGHUP);
    std::function<void()> wait_hup = [&] {
        hup.async_wait([&](const boost::system::error_code& ec, int) {
            if (ec)
                return;
            reload("SIGHUP");
            wait_hup();
        });
    };
    wait_hup();
    boost::asio::steady_timer watch_timer(io);
    std::optional<std::filesystem::file_time_type> seen;
    std::function<void()> watch = [&] {
        std::error_code fec;
        auto mtime = std::filesystem::last_write_time(source, fec);
        if (!fec && seen && mtime != *seen)
            reload("--watch");
        if (!fec)
            seen = mtime;
        watch_timer.expires_after(std::chrono::seconds(2));
        watch_timer.async_wait([&](const boost::system::error_code& ec) {
            if (!ec)
                watch();
        });
    };
    if (opt.watch)
        watch();

    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec)
            return;
        spdlog::info("signal {}: shutting down (draining up to 10 s)", sig);
        notify_stopping();
        hup.cancel();
        watch_timer.cancel();
        gw.drain(std::chrono::seconds(10), [&] { io.stop(); });
    });
    // Type=notify (config/systemd): ready once the listener is bound and signals are handled.
    notify_ready("listening on port " + std::to_string(port));
    io.run();
    bridged_gateway = nullptr;
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown); // and its actors
    return 0;
}

} // namespace gate
