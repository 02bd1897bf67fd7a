#include "hooks/app.hpp"

#include "actors/message_types.hpp"
#include "actors/openssl_thread_state.hpp"
#include "hooks/api.hpp"
#include "hooks/dispatcher.hpp"
#include "hooks/hooks_metrics.hpp"
#include "hooks/private_files.hpp"
#include "hooks/retention_sweeper.hpp"
#include "hooks/routes.hpp"
#include "hooks/settings.hpp"
#include "hooks/store_actor.hpp"
#include "process/cli_values.hpp"
#include "process/logging.hpp"
#include "process/service_manager.hpp"
#include "process/version.hpp"
#include "transport/http/header_writer.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <spdlog/spdlog.h>

namespace gate::hooks {

namespace {

constexpr const char* usage = R"(usage:
  gate-hooks --config <file> [--host <addr>] [--port <n>] [--database <file>]
             [--log-level debug|info|warn|error] [--log-format text|json]
      runs the webhook service (the configuration: docs/webhooks.md)
  gate-hooks emit --api <url> --token-env <VAR> --type <event> [--data <json>]
      posts one event to a running service; the token is read from the variable VAR
  gate-hooks --routes     prints every route served, one per line
  gate-hooks --version | --help
)";

int usage_failure(const std::string& message) {
    std::fprintf(stderr, "gate-hooks: %s\n(gate-hooks --help shows the usage)\n", message.c_str());
    return 2;
}

// `gate-hooks emit`: one POST /events to a running service.
int emit(const std::vector<std::string>& args) {
    std::string api, token_env, type, data = "{}";
    for (std::size_t i = 0; i < args.size(); ++i) {
        auto value = [&](const char* name) -> std::optional<std::string> {
            if (i + 1 >= args.size())
                return std::nullopt;
            (void)name;
            return args[++i];
        };
        std::optional<std::string> v;
        if (args[i] == "--api" && (v = value("--api")))
            api = *v;
        else if (args[i] == "--token-env" && (v = value("--token-env")))
            token_env = *v;
        else if (args[i] == "--type" && (v = value("--type")))
            type = *v;
        else if (args[i] == "--data" && (v = value("--data")))
            data = *v;
        else
            return usage_failure("emit: unknown or incomplete option " + args[i]);
    }
    if (api.empty() || token_env.empty() || type.empty())
        return usage_failure("emit needs --api, --token-env and --type");
    const char* token = std::getenv(token_env.c_str());
    if (!token || !*token)
        return usage_failure("emit: " + token_env + " is not set or is empty");
    auto u = boost::urls::parse_absolute_uri(api);
    if (!u || u->scheme() != "http")
        return usage_failure("emit: --api must be an http:// URL of a running gate-hooks");
    boost::system::error_code parse_ec;
    auto parsed = boost::json::parse(data, parse_ec);
    if (parse_ec || !parsed.is_object())
        return usage_failure("emit: --data must be a JSON object");
    namespace http = boost::beast::http;
    boost::asio::io_context io;
    boost::asio::ip::tcp::resolver resolver(io);
    boost::beast::tcp_stream stream(io);
    try {
        std::string port = u->has_port() ? std::string(u->port()) : "80";
        stream.connect(resolver.resolve(std::string(u->host()), port));
        std::string path = std::string(u->encoded_path());
        while (!path.empty() && path.back() == '/')
            path.pop_back();
        http::request<http::string_body> req{http::verb::post, path + "/events", 11};
        req.set(http::field::host, std::string(u->host()) + ":" + port);
        req.set(http::field::content_type, "application/json");
        if (!transport::set_header(req, http::field::authorization, std::string("Bearer ") + token))
            return usage_failure("emit: " + token_env + " holds a control character");
        req.body() = boost::json::serialize(
            boost::json::object{{"type", type}, {"data", std::move(parsed)}});
        req.prepare_payload();
        http::write(stream, req);
        boost::beast::flat_buffer buf;
        http::response<http::string_body> res;
        http::read(stream, buf, res);
        std::printf("%s\n", res.body().c_str());
        return res.result() == http::status::accepted ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gate-hooks emit: %s\n", e.what());
        return 1;
    }
}

// The service's options, as given.
struct command_line {
    std::optional<std::string> config, host, database, port;
    std::string log_level = "info", log_format = "text";
};

// The options into `cl`; an exit status when the program ends here (--help, --routes,
// --version: 0; a wrong option: 2).
std::optional<int> read_command_line(const std::vector<std::string>& args, command_line& cl) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        if (a == "--help") {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a == "--routes") {
            // The routes served, one "METHOD /path" per line (checked against the OpenAPI
            // description by a test).
            for (const auto& r : routes)
                std::printf("%s %s\n", std::string(r.method).c_str(), std::string(r.path).c_str());
            return 0;
        }
        if (a == "--version") {
            std::printf("gate-hooks %s\n", std::string(process::gate_release).c_str());
            return 0;
        }
        if (i + 1 >= args.size())
            return usage_failure("unknown or incomplete option " + a);
        const auto& v = args[++i];
        if (a == "--config")
            cl.config = v;
        else if (a == "--host")
            cl.host = v;
        else if (a == "--port")
            cl.port = v;
        else if (a == "--database")
            cl.database = v;
        else if (a == "--log-level")
            cl.log_level = v;
        else if (a == "--log-format")
            cl.log_format = v;
        else
            return usage_failure("unknown option " + a);
    }
    if (!cl.config)
        return usage_failure("--config <file> is required");
    return std::nullopt;
}

// The configuration file's settings with the command line's overrides, or the usage failure.
std::variant<settings, int> read_settings(const command_line& cl) {
    std::string text;
    try {
        text = read_private_config(*cl.config);
    } catch (const std::exception& e) {
        return usage_failure(e.what());
    }
    auto parsed = parse_settings(text);
    if (auto* why = std::get_if<std::string>(&parsed))
        return usage_failure(*cl.config + ": " + *why);
    auto s = std::get<settings>(parsed);
    if (cl.host)
        s.host = *cl.host;
    if (cl.database)
        s.database = *cl.database;
    if (cl.port)
        if (auto bad = process::parse_port("--port", *cl.port, s.port))
            return usage_failure(*bad);
    if (auto bad = process::check_log_level(cl.log_level))
        return usage_failure("--log-level: " + *bad);
    if (auto bad = process::check_log_format(cl.log_format))
        return usage_failure("--log-format: " + *bad);
    return s;
}

// The service on its store until SIGTERM or SIGINT: the API, the deliveries, one io thread and
// one actor worker. The exit status.
int serve(const settings& s, std::shared_ptr<store> db) {
    caf::actor_system_config cfg;
    cfg.set("scheduler.max-threads", static_cast<size_t>(1));
    cfg.set("work-stealing.moderate-poll-attempts", static_cast<size_t>(0));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    cfg.add_thread_hook<actors::openssl_thread_state>();
    actors::add_message_type<store_job>(cfg);
    caf::actor_system sys{cfg};
    // The actor system outlives the io_context: a handler left in the context's queue at stop
    // may hold the store actor, and ~actor_system waits for its detached thread, which waits
    // for the last hold to go. The store actor has ended before the context goes (stop_store),
    // so no reply posts into a destroyed context.
    boost::asio::io_context io(1);
    auto store_actor = spawn_store_actor(sys, db);
    auto stop_store = [&] {
        caf::anon_send_exit(store_actor, caf::exit_reason::user_shutdown);
        sys.await_all_actors_done();
    };

    hooks_metrics metrics;
    dispatcher worker(io, store_actor, s.delivery, metrics);
    retention_sweeper retention(io, store_actor, s.retention, metrics);
    api handler(s, store_actor, worker, metrics);
    transport::http_server server(io, handler, s.max_body_bytes, "gate-hooks");
    std::uint16_t bound = 0;
    try {
        bound = server.listen(s.host, s.port);
    } catch (const std::exception& e) {
        spdlog::error("cannot listen on {}:{}: {}", s.host, s.port, e.what());
        stop_store();
        return 1;
    }
    worker.start();
    retention.start();
    spdlog::info("gate-hooks {} listening on http://{}:{}/ (store: {}; {} organization{})",
                 process::gate_release, s.host, bound,
                 s.database.starts_with("postgres") ? "PostgreSQL" : s.database, s.tokens.size(),
                 s.tokens.size() == 1 ? "" : "s");
    boost::asio::signal_set signals(io, SIGTERM, SIGINT);
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec)
            return;
        spdlog::info("signal {}: stopping; deliveries in flight are attempted again after "
                     "restart",
                     sig);
        process::notify_stopping();
        worker.stop();
        retention.stop();
        server.stop();
        server.drain(std::chrono::seconds(5), [&] { io.stop(); });
    });
    // Type=notify (config/systemd): ready once the listener is bound and signals are handled.
    process::notify_ready("listening on port " + std::to_string(bound));
    io.run();
    stop_store();
    return 0;
}

} // namespace

int run_hooks(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "emit")
        return emit({args.begin() + 1, args.end()});
    command_line cl;
    if (auto status = read_command_line(args, cl))
        return *status;
    auto read = read_settings(cl);
    if (auto* status = std::get_if<int>(&read))
        return *status;
    const auto& s = std::get<settings>(read);
    process::setup_logging(cl.log_format, cl.log_level);

    std::shared_ptr<store> db;
    try {
        db = open_store(s.database);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return 1;
    }
    return serve(s, std::move(db));
}

} // namespace gate::hooks
