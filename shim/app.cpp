#include "shim/app.hpp"

#include "process/logging.hpp"
#include "process/service_manager.hpp"
#include "process/version.hpp"
#include "shim/options.hpp"
#include "shim/probe.hpp"
#include "shim/shim_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <spdlog/spdlog.h>

namespace gate::shim {

namespace {

constexpr auto probe_timeout = std::chrono::seconds(10);

int usage_failure(const std::string& message) {
    std::fprintf(stderr, "gate-stdio: %s\n(gate-stdio --help shows the options)\n",
                 message.c_str());
    return 2;
}

std::string command_line(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv)
        out += (out.empty() ? "" : " ") + a;
    return out;
}

// What the server runs and who may call it, from the options: the settings, or the exit
// status of a usage failure.
std::variant<shim_settings, int> settings_of(const options& opt) {
    shim_settings settings;
    settings.server.argv = opt.command;
    settings.server.env = passthrough_environment(opt.env_passthrough);
    settings.server.dir = opt.dir;
    settings.max_sessions = opt.max_sessions;
    settings.max_body_bytes = opt.max_body_bytes;
    settings.loopback = is_loopback_host(opt.host);
    if (opt.bearer_env) {
        const char* token = std::getenv(opt.bearer_env->c_str());
        if (!token || !*token)
            return usage_failure("--bearer-env names " + *opt.bearer_env +
                                 ", which is not set or is empty");
        settings.bearer = token;
    }
    if (!settings.loopback && !settings.bearer)
        return usage_failure("refusing to listen on " + opt.host +
                             " without --bearer-env: beyond loopback anyone who can reach the "
                             "port could run the server; name a variable holding a token");
    if (opt.dir) {
        std::error_code ec;
        if (!std::filesystem::is_directory(*opt.dir, ec))
            return usage_failure("--dir " + *opt.dir + " is not a directory");
    }
    return settings;
}

// --probe: the server started once and its handshake completed; 0 when it was.
int probe(boost::asio::io_context& io, const spawn_request& server) {
    int status = 1;
    boost::asio::co_spawn(io, probe_server(io.get_executor(), server, probe_timeout),
                          [&](std::exception_ptr ep, probe_result r) {
                              if (ep) {
                                  std::fprintf(stderr, "gate-stdio: probe failed\n");
                                  return;
                              }
                              if (r.ok) {
                                  std::printf("probe ok: %s\n", r.detail.c_str());
                                  status = 0;
                              } else {
                                  std::fprintf(stderr, "gate-stdio: probe failed: %s\n",
                                               r.detail.c_str());
                              }
                          });
    io.run();
    return status;
}

// The io_context whose pending work is ended on purpose: the coroutines still suspended when
// the loop stops (a session's GET stream, say) are destroyed by the context's shutdown, and
// their cleanup touches the server; run_shim ends them while the server still lives (ASan saw
// a stream's cleanup reach the session ledger after the server was gone).
class shim_io final : public boost::asio::io_context {
public:
    using io_context::io_context;
    void end_pending_work() { shutdown(); }
};

} // namespace

int run_shim(int argc, char** argv) {
    // Writing to the pipe of a child that just exited must be an error, not our death.
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);
    auto parsed = parse_command_line(args);
    if (auto* e = std::get_if<usage_error>(&parsed))
        return usage_failure(e->message);
    auto& opt = std::get<options>(parsed);
    if (opt.help) {
        std::fputs(usage_text().c_str(), stdout);
        return 0;
    }
    if (opt.version) {
        std::printf("gate-stdio %s\n", std::string(process::gate_release).c_str());
        return 0;
    }
    process::setup_logging(opt.log_format, opt.log_level);

    auto configured = settings_of(opt);
    if (auto* status = std::get_if<int>(&configured))
        return *status;
    auto& settings = std::get<shim_settings>(configured);
    auto host = opt.host == "localhost" ? std::string("127.0.0.1") : opt.host;

    shim_io io(1);
    if (opt.probe)
        return probe(io, settings.server);

    shim_server server(io, std::move(settings));
    std::uint16_t port = 0;
    try {
        port = server.listen(host, opt.port);
    } catch (const std::exception& e) {
        spdlog::error("cannot listen on {}:{}: {}", opt.host, opt.port, e.what());
        return 1;
    }
    spdlog::info("gate-stdio {} listening on http://{}:{}/mcp (server: {}; up to {} session{})",
                 process::gate_release,
                 host.find(':') != std::string::npos ? "[" + host + "]" : host, port,
                 command_line(opt.command), opt.max_sessions, opt.max_sessions == 1 ? "" : "s");

    boost::asio::signal_set signals(io, SIGTERM, SIGINT);
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec)
            return;
        spdlog::info("signal {}: ending every session and reaping every child", sig);
        process::notify_stopping();
        server.shutdown([&] {
            spdlog::info("every child reaped; exiting");
            io.stop();
        });
    });
    // Type=notify (config/systemd): ready once the listener is bound and signals are handled.
    process::notify_ready("listening on port " + std::to_string(port));
    io.run();
    io.end_pending_work(); // before the server and its ledger go
    return 0;
}

} // namespace gate::shim
