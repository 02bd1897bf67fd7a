// replay: a recording (gate --record) played again through the real gateway in virtual time
// (docs/simulations.md). gate's pipeline, actors and decision logic run in this process as in
// gate itself, on CAF's test_coordinator and one io_context under virtual time
// (virtual_time.hpp); each upstream is simulated from the recording (sim_upstream); the
// recorded clients send their messages at their recorded times (replay_client). Writes the
// audit stream and the final metrics; the same recording and configuration give the same
// bytes on every run.
//
//   replay --config gate.json --recording traffic.jsonl --audit-out audit.jsonl
//          --metrics-out metrics.txt
#include "actors/message_types.hpp"
#include "actors/supervision/supervisor.hpp"
#include "config/load.hpp"
#include "gateway/fleet/fleet_store.hpp"
#include "gateway/operations/batch_poster.hpp"
#include "gateway/program/gateway.hpp"
#include "simulations/replay/metrics_report.hpp"
#include "simulations/replay/recorded_traffic.hpp"
#include "simulations/replay/replay_client.hpp"
#include "simulations/replay/sim_store_proxy.hpp"
#include "simulations/replay/sim_upstream.hpp"
#include "simulations/replay/simulated_world.hpp"
#include "simulations/replay/virtual_time.hpp"
#include "transport/redis/redis_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sstream>

using namespace gate;
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

struct arguments {
    std::string config, recording, audit_out, metrics_out, faults, store;
    std::size_t instances = 1;
    bool rotate = false;
};

const char* usage = "usage: replay --config <gate.json> --recording <traffic.jsonl> "
                    "--audit-out <file> --metrics-out <file> [--faults <script.json>]\n"
                    "       [--instances <n> --store <redis://127.0.0.1:port/db> "
                    "[--balance sticky|rotate]]\n";

std::optional<arguments> parse_arguments(int argc, char** argv) {
    arguments a;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--config")
            a.config = value;
        else if (flag == "--recording")
            a.recording = value;
        else if (flag == "--audit-out")
            a.audit_out = value;
        else if (flag == "--metrics-out")
            a.metrics_out = value;
        else if (flag == "--faults")
            a.faults = value;
        else if (flag == "--store")
            a.store = value;
        else if (flag == "--balance" && (value == "sticky" || value == "rotate"))
            a.rotate = value == "rotate";
        else if (flag == "--instances" && value.size() == 1 && value[0] >= '1' && value[0] <= '9')
            a.instances = static_cast<std::size_t>(value[0] - '0');
        else
            return std::nullopt;
    }
    if (argc % 2 == 0 || a.config.empty() || a.recording.empty() || a.audit_out.empty() ||
        a.metrics_out.empty() || (a.instances > 1 && a.store.empty()))
        return std::nullopt; // a fleet shares a store (one instance may too)
    return a;
}

// What a run reads before virtual time starts, each checked: a message and status 1 if not.
struct inputs {
    std::shared_ptr<const config::document> doc;
    sim::recorded_traffic traffic;
    std::shared_ptr<const sim::fault_script> faults;
    std::optional<transport::redis_endpoint> store;
    std::optional<protocol::cursor_codec::key_type> cursor_key;
    std::FILE* audit_out = nullptr;
};

// The fault script at `path`: false, with its errors printed, if it does not parse.
bool read_faults(const std::string& path, inputs& in) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    auto parsed = sim::parse_fault_script(text.str());
    if (auto* errors = std::get_if<std::vector<std::string>>(&parsed)) {
        for (const auto& e : *errors)
            std::fprintf(stderr, "replay: %s: %s\n", path.c_str(), e.c_str());
        return false;
    }
    in.faults = std::make_shared<sim::fault_script>(std::get<sim::fault_script>(parsed));
    return true;
}

// The store is joined in real time, before virtual time starts (as gate joins it at start):
// false, with the reason printed, if it does not answer.
bool join_store(const std::string& url, inputs& in) {
    auto parsed = transport::parse_redis_url(url);
    if (auto* why = std::get_if<std::string>(&parsed)) {
        std::fprintf(stderr, "replay: --store: %s\n", why->c_str());
        return false;
    }
    in.store = std::get<transport::redis_endpoint>(parsed);
    auto joined = gateway::join_fleet(*in.store);
    if (auto* why = std::get_if<std::string>(&joined)) {
        std::fprintf(stderr, "replay: the store %s does not answer: %s\n",
                     in.store->display.c_str(), why->c_str());
        return false;
    }
    in.cursor_key = std::get<gateway::fleet_membership>(joined).cursor_key;
    return true;
}

std::optional<inputs> read_inputs(const arguments& args) {
    inputs in;
    auto loaded = config::load(args.config);
    if (!loaded.doc) {
        std::fprintf(stderr, "replay: %s: %s\n", args.config.c_str(),
                     config::one_line(loaded.errors).c_str());
        return std::nullopt;
    }
    in.doc = loaded.doc;
    try {
        in.traffic = sim::read_recording(args.recording);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "replay: %s\n", e.what());
        return std::nullopt;
    }
    if (!args.faults.empty() && !read_faults(args.faults, in))
        return std::nullopt;
    if (!args.store.empty() && !join_store(args.store, in))
        return std::nullopt;
    in.audit_out = std::fopen(args.audit_out.c_str(), "wb");
    if (!in.audit_out) {
        std::fprintf(stderr, "replay: cannot write %s\n", args.audit_out.c_str());
        return std::nullopt;
    }
    return in;
}

// One gate of the simulated fleet: its actors under its supervisor, its gateway on the
// simulation's io_context.
struct instance {
    std::shared_ptr<gate::actors::actor_directory> directory =
        std::make_shared<gate::actors::actor_directory>();
    gate::actors::supervisor_actor supervisor;
    std::optional<gateway::program::gateway> gw;
};

// Starts `i` (its supervisor, run until settled, then its gateway); returns the port it
// listens on.
std::uint16_t start_instance(instance& i, caf::actor_system& sys,
                             caf::scheduler::test_coordinator& sched, asio::io_context& io,
                             std::shared_ptr<const gate::actors::snapshot> snap, const inputs& in,
                             const std::optional<transport::redis_endpoint>& shared) {
    gate::actors::supervised what;
    what.snap = snap;
    what.audit = snap->doc->audit;
    what.audit_outlet_.out = in.audit_out;
    what.audit_outlet_.post = gateway::make_batch_poster(io);
    what.span_outlet_.post = what.audit_outlet_.post;
    what.cursor_key = in.cursor_key;
    what.retire = [&io, &i](std::vector<gate::actors::retired_bridge> gone) {
        asio::post(io, [&i, gone = std::move(gone)]() mutable {
            if (i.gw)
                i.gw->retire_bridges(std::move(gone));
        });
    };
    i.supervisor = spawn_supervisor(sys, std::move(what), i.directory);
    sched.run();
    i.gw.emplace(io, gateway::program::gateway_parts{
                         i.directory,
                         snap,
                         i.supervisor,
                         false,
                         shared,
                         in.cursor_key.value_or(protocol::cursor_codec::key_type{}),
                         {},
                         {},
                         {},
                         nullptr,
                         nullptr,
                         {},
                         {},
                         {},
                         {},
                         {}});
    return i.gw->listen("127.0.0.1", 0);
}

// Every audit event of every instance written (its sinks fed, their batches flushed) before
// the metrics are read.
asio::awaitable<void> flush_audit(asio::io_context& io, std::deque<instance>& fleet) {
    boost::system::error_code ec;
    for (auto& i : fleet) {
        i.gw->feed_sinks();
        asio::steady_timer flushed(io, asio::steady_timer::time_point::max());
        caf::anon_send(i.directory->load()->audit.sink(),
                       actors::batch_flush{gate::actors::reply_to<bool>([&](std::optional<bool>) {
                           asio::post(io, [&] { flushed.cancel(); });
                       })});
        co_await flushed.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

// Each instance's /metrics, made deterministic, one after the other.
asio::awaitable<std::string> read_metrics(sim::replay_client& client, std::size_t instances) {
    std::string metrics;
    for (std::size_t n = 0; n < instances; ++n) {
        if (instances > 1)
            metrics += "# gate instance " + std::to_string(n + 1) + "\n";
        metrics += sim::deterministic_metrics(co_await client.get("/metrics", n));
    }
    co_return metrics;
}

// What each simulated upstream was asked, each replica as <id>#<n>, n from 1.
json::object upstreams_report(const std::vector<std::unique_ptr<sim::sim_upstream>>& servers) {
    json::object upstreams;
    std::map<std::string, int> replicas;
    for (const auto& s : servers) {
        json::object asked;
        for (const auto& [m, n] : s->asked)
            asked[m] = n;
        json::object faulted;
        for (const auto& [k, n] : s->faulted)
            faulted[k] = n;
        upstreams[s->upstream() + "#" + std::to_string(++replicas[s->upstream()])] =
            json::object{{"asked", std::move(asked)},
                         {"unanswerable", s->unanswerable},
                         {"faulted", std::move(faulted)}};
    }
    return upstreams;
}

// The invariants every run must keep (docs/simulations.md); each broken one is printed.
json::object invariants_of(const sim::replay_client& client, std::size_t audited) {
    json::object invariants{
        {"oneAuditEventPerMessage", audited == client.posts},
        {"noRequestAnsweredTwice", client.answered_twice == 0},
        {"noPrincipalSeesAnothersCursorTaskOrMessage", client.shared_across_principals == 0}};
    for (const auto& [name, kept] : invariants)
        if (!kept.as_bool())
            std::fprintf(stderr,
                         "replay: invariant broken: %s (%zu audit events, %llu "
                         "messages, %llu answered twice, %llu shared)\n",
                         std::string(name).c_str(), audited,
                         static_cast<unsigned long long>(client.posts),
                         static_cast<unsigned long long>(client.answered_twice),
                         static_cast<unsigned long long>(client.shared_across_principals));
    return invariants;
}

bool all_kept(const json::object& invariants) {
    for (const auto& [name, kept] : invariants)
        if (!kept.as_bool())
            return false;
    return true;
}

// The simulation on the io thread: its parts, and the run from gate's start-up to the report.
struct simulation {
    asio::io_context& io;
    const arguments& args;
    const inputs& in;
    std::vector<std::unique_ptr<sim::sim_upstream>>& servers;
    std::optional<sim::sim_store_proxy>& proxy;
    std::deque<instance>& fleet;
    sim::replay_client& client;
    int& status;

    // Gate's start-up, then the recorded traffic at its times, then the report on stdout and
    // the metrics in their file; status 3 when an invariant was broken.
    asio::awaitable<void> run() {
        asio::steady_timer until(io, sim::virtual_now() + std::chrono::seconds(1));
        boost::system::error_code ec;
        co_await until.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        for (auto& s : servers)
            s->arm_faults(sim::virtual_now());
        if (proxy)
            proxy->arm_faults(sim::virtual_now());
        co_await client.replay(in.traffic.requests);
        co_await flush_audit(io, fleet);
        std::string metrics = co_await read_metrics(client, fleet.size());
        std::ofstream(args.metrics_out, std::ios::binary) << metrics;
        json::object report{{"requests", in.traffic.requests.size()},
                            {"synthesizedInitializes", client.synthesized_initializes}};
        json::object statuses;
        for (auto [code, n] : client.statuses)
            statuses[std::to_string(code)] = n;
        report["httpStatuses"] = std::move(statuses);
        report["upstreams"] = upstreams_report(servers);
        report["guards"] = sim::guards_of(metrics);
        if (proxy)
            report["store"] = json::object{{"commands", proxy->commands()},
                                           {"heldByStalls", proxy->held},
                                           {"degraded", sim::degraded_of(metrics)}};
        std::fflush(in.audit_out);
        auto invariants = invariants_of(client, sim::lines_in(args.audit_out));
        if (!all_kept(invariants))
            status = 3;
        report["invariants"] = std::move(invariants);
        report["upstreamMessagesHeard"] = client.heard_from_upstreams;
        report["virtualSeconds"] = std::chrono::duration<double>(sim::jumps().total).count();
        std::cout << json::serialize(report) << '\n';
        io.stop();
    }
};

// The simulated world (upstreams, the store's proxy, the fleet, the clients) on one
// io_context in virtual time, run to its end; the status main returns.
int simulate(const arguments& args, inputs& in, caf::actor_system& sys,
             caf::scheduler::test_coordinator& sched) {
    int status = 0;
    asio::io_context io{1};
    auto answers = std::make_shared<sim::recorded_answers>(std::move(in.traffic.answers));
    std::vector<std::unique_ptr<sim::sim_upstream>> servers;
    sim::sim_upstream issuer(io, "", 1, answers);
    auto key = std::make_shared<protocol::jose::es256_signer>(sim::simulation_key());
    issuer.serve_jwks(json::object{{"keys", json::array{key->public_jwk()}}});
    std::shared_ptr<const config::document> doc =
        sim::simulated(*in.doc, io, answers, in.faults, servers, issuer);

    // The fleet's shared store: a real redis-server, reached through the proxy that holds
    // the simulation's virtual time while Redis owes an answer.
    std::optional<sim::sim_store_proxy> proxy;
    std::optional<transport::redis_endpoint> shared;
    if (in.store) {
        proxy.emplace(io, in.store->host, in.store->port, in.faults);
        shared = *in.store;
        shared->host = "127.0.0.1";
        shared->port = std::to_string(proxy->port());
        sim::wait_for_outside([&proxy] { return proxy->unanswered() > 0; });
    }
    auto snap = gate::actors::make_snapshot(doc, 1);
    std::deque<instance> fleet(args.instances);
    std::vector<std::uint16_t> ports;
    for (auto& i : fleet)
        ports.push_back(start_instance(i, sys, sched, io, snap, in, shared));
    sim::replay_client client(io, ports, doc->server.mcp_path, sim::minter(doc, key),
                              args.rotate ? sim::replay_client::balance::rotate
                                          : sim::replay_client::balance::sticky);
    simulation run{io, args, in, servers, proxy, fleet, client, status};
    asio::co_spawn(io, run.run(), [&status](std::exception_ptr e) {
        if (!e)
            return;
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& x) {
            std::fprintf(stderr, "replay: %s\n", x.what());
        }
        status = 1;
    });
    io.run();
    for (auto& i : fleet) {
        i.gw.reset();
        caf::anon_send_exit(i.supervisor, caf::exit_reason::user_shutdown);
    }
    sched.run();
    return status;
}

} // namespace

int main(int argc, char** argv) {
    auto args = parse_arguments(argc, argv);
    if (!args) {
        std::fputs(usage, stderr);
        return 2;
    }
    // The report goes to stdout; gate's log lines (what the faults cause) to stderr.
    spdlog::set_default_logger(spdlog::stderr_logger_mt("replay"));
    spdlog::set_level(spdlog::level::warn);
    auto in = read_inputs(*args);
    if (!in)
        return 1;

    caf::actor_system_config cfg;
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    gate::actors::add_message_types(cfg);
    caf::actor_system sys{cfg};
    auto& sched = dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
    // The simulation starts a second before the first recorded message: gate's start-up
    // (its upstreams' handshakes) happens before it, as it did when it was recorded.
    auto origin = in->traffic.requests.empty()
                      ? std::chrono::system_clock::time_point{}
                      : in->traffic.requests.front().at - std::chrono::seconds(1);
    sim::start_virtual_time(sched, origin);
    int status = simulate(*args, *in, sys, sched);
    sim::stop_virtual_time();
    std::fclose(in->audit_out);
    return status;
}
