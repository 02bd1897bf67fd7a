// The floor under gate's idle memory: a program that links the libraries gate links and starts
// what gate starts before it does anything of its own (a CAF actor system tuned as gate's, two
// scheduler workers; an io_context with a listening socket; OpenSSL with a client TLS context;
// a logger and a metrics registry), then waits. simulations/idle_rss.sh measures it beside
// gate: what gate holds above this is gate's own (its code and its state).
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/json/parse.hpp>
#include <boost/url/parse.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <cstdio>
#include <prometheus/counter.h>
#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

int main() {
    caf::actor_system_config cfg;
    cfg.set("scheduler.policy", caf::atom("stealing"));
    cfg.set("scheduler.max-threads", static_cast<size_t>(2));
    cfg.set("work-stealing.moderate-poll-attempts", static_cast<size_t>(0));
    cfg.set("work-stealing.relaxed-sleep-duration", caf::timespan{std::chrono::milliseconds(100)});
    cfg.set("logger.verbosity", caf::atom("quiet"));
    caf::actor_system sys{cfg};

    boost::asio::io_context io{1};
    boost::asio::ip::tcp::acceptor listener(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    boost::asio::ssl::context tls(boost::asio::ssl::context::tls_client);
    tls.set_default_verify_paths();
    prometheus::Registry registry;
    prometheus::BuildCounter().Name("floor_total").Help("n").Register(registry).Add({}).Increment();
    auto doc = boost::json::parse(R"({"jsonrpc":"2.0"})");
    auto url = boost::urls::parse_uri("http://127.0.0.1/mcp");
    spdlog::info("idle floor listening on {} ({} {})", listener.local_endpoint().port(),
                 doc.as_object().size(), url.has_value());
    std::printf("%u\n", static_cast<unsigned>(listener.local_endpoint().port()));
    std::fflush(stdout);

    boost::asio::signal_set stop(io, SIGTERM, SIGINT);
    stop.async_wait([&](auto, int) { io.stop(); });
    io.run();
}
