#include "gateway/program/cli.hpp"

#include "process/cli_values.hpp"

namespace gate::gateway::program {

std::string usage_text() {
    return R"(usage: gate [options]
       gate policy test --config <gate.json> <cases.json>
                          check the policy against expected decisions (exit 1 on a mismatch)
       gate definitions lock --config <gate.json> [--output <file>]
                          write the lock file of the upstreams' tool definitions
       gate check --config <gate.json> [--timeout-ms <n>] [--json]
                          try every upstream, issuer, store, receiver and discovery source
                          the configuration names (exit 1 when one is down)

  --config <path>         configuration document (or set GATE_CONFIG to a path or inline JSON)
  --validate              parse and validate the configuration, print every error, and exit
  --schema                print the JSON Schema of the configuration document and exit
  --host <address>        bind address (default 127.0.0.1)
  --port <port>           listening port (default 8090; 0 picks a free port)
  --watch                 reload when the configuration file changes (polled every 2 s)
  --log-format text|json  log line format on stderr (default text)
  --log-level <level>     debug, info, warn or error (default info)
  --record <path>         record the traffic gate carries, one JSON line per event, secrets
                          left out (docs/recording.md); off by default
  --record-max-bytes <n>  rotate the recording to <path>.1 at this size (default 268435456)
  --io-spin-us <n>        after handling work, poll for more for up to <n> microseconds
                          before sleeping (0 to 10000; default 0): lower latency on a core
                          given to gate, at the cost of that CPU (docs/operations.md)
  --io-threads <n>        io threads answering requests (1 to 256; default one per core gate
                          may run on, fewer under a cgroup CPU quota): each session is
                          answered on the thread that opened it (docs/io-threads.md)
  --version               print the version and exit
  --help                  print this help and exit
)";
}

namespace {

// A count of `flag` between `min` and `max`.
std::optional<usage_error> bounded_count(const std::string& flag, const std::string& text,
                                         std::uint64_t min, std::uint64_t max, std::uint64_t& out) {
    if (auto bad = process::parse_count(flag, text, min, out))
        return usage_error{*bad};
    if (out > max)
        return usage_error{flag + " must be at most " + std::to_string(max) + ", got \"" + text +
                           "\""};
    return std::nullopt;
}

} // namespace

std::variant<options, usage_error> parse_command_line(const std::vector<std::string>& args) {
    options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        auto value = [&](std::string& out) -> std::optional<usage_error> {
            if (i + 1 >= args.size())
                return usage_error{a + " needs a value"};
            out = args[++i];
            return std::nullopt;
        };
        std::string v;
        if (a == "--config") {
            if (auto e = value(v))
                return *e;
            o.config = v;
        } else if (a == "--validate") {
            o.validate = true;
        } else if (a == "--schema") {
            o.schema = true;
        } else if (a == "--watch") {
            o.watch = true;
        } else if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (a == "--version") {
            o.version = true;
        } else if (a == "--host") {
            if (auto e = value(o.host))
                return *e;
        } else if (a == "--port") {
            if (auto e = value(v))
                return *e;
            if (auto bad = process::parse_port(a, v, o.port))
                return usage_error{*bad};
        } else if (a == "--log-format") {
            if (auto e = value(o.log_format))
                return *e;
            if (auto bad = process::check_log_format(o.log_format))
                return usage_error{*bad};
        } else if (a == "--log-level") {
            if (auto e = value(o.log_level))
                return *e;
            if (auto bad = process::check_log_level(o.log_level))
                return usage_error{*bad};
        } else if (a == "--record") {
            if (auto e = value(v))
                return *e;
            if (v.empty())
                return usage_error{"--record needs a file path"};
            o.record = v;
        } else if (a == "--record-max-bytes") {
            if (auto e = value(v))
                return *e;
            // A line is a request with its params: a cap below 4 KiB would refuse most.
            if (auto bad = process::parse_count(a, v, 4096, o.record_max_bytes))
                return usage_error{*bad};
        } else if (a == "--io-spin-us" || a == "--io-threads") {
            if (auto e = value(v))
                return *e;
            bool spin = a == "--io-spin-us";
            std::uint64_t n = 0;
            if (auto bad =
                    bounded_count(a, v, spin ? 0 : 1, spin ? max_io_spin_us : max_io_threads, n))
                return *bad;
            if (spin)
                o.io_spin_us = static_cast<std::uint32_t>(n);
            else
                o.io_threads = static_cast<std::size_t>(n);
        } else {
            return usage_error{"unknown option \"" + a + "\""};
        }
    }
    if (!o.record && o.record_max_bytes != default_record_max_bytes)
        return usage_error{"--record-max-bytes needs --record"};
    return o;
}

} // namespace gate::gateway::program
