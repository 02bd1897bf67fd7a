#include "gateway/program/app.hpp"

#include "config/discovery_containment.hpp"
#include "config/load.hpp"
#include "config/name_room.hpp"
#include "gateway/program/check_command.hpp"
#include "gateway/program/cli.hpp"
#include "gateway/program/default_io_threads.hpp"
#include "gateway/program/definitions_command.hpp"
#include "gateway/program/gateway_host.hpp"
#include "gateway/program/io_loop.hpp"
#include "gateway/program/policy_command.hpp"
#include "gateway/upstream/upstream_credential.hpp"
#include "process/logging.hpp"
#include "process/service_manager.hpp"
#include "process/version.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <pthread.h>
#include <spdlog/spdlog.h>

namespace gate::gateway::program {

namespace {

void print_errors(const std::vector<config::error>& errors) {
    for (const auto& e : errors)
        std::fprintf(stderr, "config error at %s: %s\n",
                     e.pointer.empty() ? "(document)" : e.pointer.c_str(), e.reason.c_str());
}

// --help, --version and --schema: printed, and the program ends (status 0) before any
// configuration is read.
std::optional<int> answered_at_once(const options& opt) {
    if (opt.help) {
        std::fputs(usage_text().c_str(), stdout);
        return 0;
    }
    if (opt.version) {
        std::printf("gate %s\n", std::string(process::gate_release).c_str());
        return 0;
    }
    if (opt.schema) {
        auto text = config::schema_text();
        std::fwrite(text.data(), 1, text.size(), stdout);
        return 0;
    }
    return std::nullopt;
}

// Where the configuration is: --config, else GATE_CONFIG.
std::optional<std::string> config_source(const options& opt) {
    if (opt.config)
        return *opt.config;
    if (const char* env = std::getenv("GATE_CONFIG"))
        return env;
    return std::nullopt;
}

// The status the program ends with before serving: an invalid document (1), --validate (0),
// a secret missing from the environment (1); nullopt when gate is to serve it.
std::optional<int> judged(const config::load_result& loaded, const options& opt) {
    if (!loaded.errors.empty()) {
        print_errors(loaded.errors);
        std::fprintf(stderr, "gate: configuration invalid (%zu error%s)\n", loaded.errors.size(),
                     loaded.errors.size() == 1 ? "" : "s");
        return 1;
    }
    for (const auto& line : config::name_room_warnings(*loaded.doc))
        std::fprintf(stderr, "gate: warning: %s\n", line.c_str());
    if (opt.validate) {
        std::fprintf(stderr, "gate: configuration valid\n");
        // What a registry's entry may use of gate's is the part of a discovery configuration
        // an operator most needs to read back, and absent lists allow nothing.
        if (loaded.doc->discovery)
            for (const auto& line : config::containment_summary(*loaded.doc->discovery))
                std::fprintf(stderr, "gate: %s\n", line.c_str());
        return 0;
    }
    // Secrets are the environment's, not the document's: checked at start (and at every
    // reload), not by --validate, which may run where the secrets are not.
    if (auto missing = gate::gateway::missing_secrets(*loaded.doc, std::getenv); !missing.empty()) {
        for (const auto& m : missing)
            std::fprintf(stderr, "config error at %s\n", m.c_str());
        std::fprintf(stderr, "gate: %zu secret%s missing from the environment\n", missing.size(),
                     missing.size() == 1 ? "" : "s");
        return 1;
    }
    return std::nullopt;
}

// Where the host listens, what it records, and whether the test-only fault hooks are on.
gateway_host::options host_options(const options& opt) {
    gateway_host::options where{opt.host, opt.port, false, std::nullopt};
    where.io_threads = opt.io_threads > 0 ? opt.io_threads : default_io_threads(max_io_threads);
    where.io_spin = std::chrono::microseconds(opt.io_spin_us);
    if (opt.record)
        where.record = actors::record_target{*opt.record, opt.record_max_bytes};
    if (const char* hooks = std::getenv("GATE_TEST_FAULT_HOOKS");
        hooks && hooks == std::string_view("1")) {
        where.fault_hooks = true;
        spdlog::warn(
            "GATE_TEST_FAULT_HOOKS=1: test-only fault hooks are enabled (POST /_test/...)");
    }
    return where;
}

// Reload: SIGHUP, or with --watch a change of the file's modification time (polled every
// 2 s). A document that fails validation or changes a construction-wired section is refused
// and the running configuration keeps serving. `seen_` is the file's modification time when
// it was last read: a reload by SIGHUP notes it too, or --watch would apply the same write a
// second time at its next poll.
class config_reloader {
public:
    config_reloader(boost::asio::io_context& io, gateway_host& host, std::string source, bool watch)
        : host_(host), source_(std::move(source)), watch_(watch), hup_(io, SIGHUP), timer_(io) {}

    void start() {
        wait_hup();
        if (watch_)
            poll();
    }
    // At shutdown: neither a signal nor a poll reloads any more.
    void stop() {
        hup_.cancel();
        timer_.cancel();
    }

private:
    void reload(const char* why) {
        std::error_code fec;
        if (auto mtime = std::filesystem::last_write_time(source_, fec); watch_ && !fec)
            seen_ = mtime;
        auto next = config::load(source_);
        if (!next.errors.empty()) {
            for (const auto& e : next.errors)
                spdlog::error("reload rejected ({}): {}: {}", why, e.pointer, e.reason);
            return;
        }
        if (auto refused = host_.reload(next.doc))
            spdlog::error("reload rejected ({}): {}", why, *refused);
    }

    void wait_hup() {
        hup_.async_wait([this](const boost::system::error_code& ec, int) {
            if (ec)
                return;
            reload("SIGHUP");
            wait_hup();
        });
    }

    void poll() {
        std::error_code fec;
        auto mtime = std::filesystem::last_write_time(source_, fec);
        if (!fec && seen_ && mtime != *seen_)
            reload("--watch"); // notes the time it read
        else if (!fec)
            seen_ = mtime;
        timer_.expires_after(std::chrono::seconds(2));
        timer_.async_wait([this](const boost::system::error_code& ec) {
            if (!ec)
                poll();
        });
    }

    gateway_host& host_;
    std::string source_;
    bool watch_;
    boost::asio::signal_set hup_;
    boost::asio::steady_timer timer_;
    std::optional<std::filesystem::file_time_type> seen_;
};

} // namespace

int run_gate(const std::vector<std::string>& args) {
    if (!args.empty() && args[0] == "policy")
        return run_policy_command({args.begin() + 1, args.end()});
    if (!args.empty() && args[0] == "definitions")
        return run_definitions_command({args.begin() + 1, args.end()});
    if (!args.empty() && args[0] == "check")
        return run_check_command({args.begin() + 1, args.end()});
    auto parsed = parse_command_line(args);
    if (auto* err = std::get_if<usage_error>(&parsed)) {
        std::fprintf(stderr, "gate: %s\n\n%s", err->message.c_str(), usage_text().c_str());
        return 2;
    }
    auto& opt = std::get<options>(parsed);
    if (auto status = answered_at_once(opt))
        return *status;
    auto source = config_source(opt);
    if (!source) {
        std::fprintf(stderr, "gate: no configuration: pass --config <path> or set GATE_CONFIG\n");
        return 2;
    }
    auto loaded = config::load(*source);
    if (auto status = judged(loaded, opt))
        return *status;
    process::setup_logging(opt.log_format, opt.log_level);
    // The log says "listening" once the listener is bound, before the handlers below exist: a
    // SIGHUP (or SIGTERM) sent on reading it would end the process. Held until they are set,
    // here and in every thread started meanwhile (which inherit the mask and keep it).
    sigset_t held;
    sigemptyset(&held);
    for (int sig : {SIGHUP, SIGINT, SIGTERM})
        sigaddset(&held, sig);
    pthread_sigmask(SIG_BLOCK, &held, nullptr);
    auto where = host_options(opt);
    std::optional<gateway_host> host;
    try {
        host.emplace(loaded.doc, where);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gate: %s\n", e.what());
        return 1;
    }
    auto& io = host->io();
    auto port = host->port();
    config_reloader reloader(io, *host, *source, opt.watch);
    reloader.start();

    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec)
            return;
        spdlog::info("signal {}: shutting down (draining up to 10 s)", sig);
        reloader.stop();
        host->drain(std::chrono::seconds(10));
    });
    pthread_sigmask(SIG_UNBLOCK, &held, nullptr); // a signal held meanwhile is handled now
    // Type=notify (config/systemd): ready once the listener is bound and signals are handled.
    process::notify_ready("listening on port " + std::to_string(port));
    run_io(io, std::chrono::microseconds(opt.io_spin_us));
    // The supervisor stopped on its own (the host logged why): not a clean stop.
    return host->failure() ? gateway_host::lost_status : 0;
}

} // namespace gate::gateway::program
