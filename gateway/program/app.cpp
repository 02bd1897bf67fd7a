#include "gateway/program/app.hpp"

#include "config/discovery_containment.hpp"
#include "config/load.hpp"
#include "gateway/auth/upstream_credential.hpp"
#include "gateway/program/cli.hpp"
#include "gateway/program/gateway_host.hpp"
#include "gateway/program/io_loop.hpp"
#include "transport/process/logging.hpp"
#include "transport/process/service_manager.hpp"
#include "transport/process/version.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <spdlog/spdlog.h>

namespace gate {

namespace {

void print_errors(const std::vector<config::error>& errors) {
    for (const auto& e : errors)
        std::fprintf(stderr, "config error at %s: %s\n",
                     e.pointer.empty() ? "(document)" : e.pointer.c_str(), e.reason.c_str());
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
        // What a registry's entry may use of gate's is the part of a discovery configuration
        // an operator most needs to read back, and absent lists allow nothing.
        if (loaded.doc->discovery)
            for (const auto& line : config::containment_summary(*loaded.doc->discovery))
                std::fprintf(stderr, "gate: %s\n", line.c_str());
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
    transport::gateway_host::options where{opt.host, opt.port, false, std::nullopt};
    if (opt.record)
        where.record = record_target{*opt.record, opt.record_max_bytes};
    if (const char* hooks = std::getenv("GATE_TEST_FAULT_HOOKS");
        hooks && hooks == std::string_view("1")) {
        where.fault_hooks = true;
        spdlog::warn(
            "GATE_TEST_FAULT_HOOKS=1: test-only fault hooks are enabled (POST /_test/...)");
    }
    std::optional<transport::gateway_host> host;
    try {
        host.emplace(loaded.doc, where);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gate: %s\n", e.what());
        return 1;
    }
    auto& io = host->io();
    auto port = host->port();
    // Reload: SIGHUP, or with --watch a change of the file's modification time (polled every
    // 2 s). A document that fails validation or changes a construction-wired section is
    // refused and the running configuration keeps serving. `seen` is the file's modification
    // time when it was last read: a reload by SIGHUP notes it too, or --watch would apply the
    // same write a second time at its next poll.
    std::optional<std::filesystem::file_time_type> seen;
    auto reload = [&, source](const char* why) {
        std::error_code fec;
        if (auto mtime = std::filesystem::last_write_time(source, fec); opt.watch && !fec)
            seen = mtime;
        auto next = config::load(source);
        if (!next.errors.empty()) {
            for (const auto& e : next.errors)
                spdlog::error("reload rejected ({}): {}: {}", why, e.pointer, e.reason);
            return;
        }
        if (auto refused = host->reload(next.doc))
            spdlog::error("reload rejected ({}): {}", why, *refused);
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
    std::function<void()> watch = [&] {
        std::error_code fec;
        auto mtime = std::filesystem::last_write_time(source, fec);
        if (!fec && seen && mtime != *seen)
            reload("--watch"); // notes the time it read
        else if (!fec)
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
        hup.cancel();
        watch_timer.cancel();
        host->drain(std::chrono::seconds(10));
    });
    // Type=notify (config/systemd): ready once the listener is bound and signals are handled.
    notify_ready("listening on port " + std::to_string(port));
    transport::run_io(io, std::chrono::microseconds(opt.io_spin_us));
    // The supervisor stopped on its own (the host logged why): not a clean stop.
    return host->failure() ? transport::gateway_host::lost_status : 0;
}

} // namespace gate
