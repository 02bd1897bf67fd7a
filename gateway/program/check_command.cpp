// `gate check --config gate.json [--timeout-ms N] [--json]`: the configuration validated, then
// everything outside gate it names tried once (check_probes.hpp), one row per thing with what
// failed and a hint (docs/operations.md, "gate check"). Exit status: 0 when everything is up,
// 1 when something is down, 2 when the command or the configuration is wrong.
#include "gateway/program/check_command.hpp"

#include "config/load.hpp"
#include "gateway/program/check_probes.hpp"
#include "process/cli_values.hpp"
#include "protocol/param_headers.hpp"

#include <boost/json/serialize.hpp>
#include <cstdio>
#include <cstdlib>
#include <spdlog/spdlog.h>

namespace gate::gateway::program {

namespace {

namespace json = boost::json;

constexpr const char* usage =
    "usage: gate check --config <gate.json> [--timeout-ms <n>] [--json]\n";

// Each try's bound: long enough for a TLS handshake across a continent, short enough that a
// check of a dead federation ends while someone waits for it.
constexpr std::uint64_t default_timeout_ms = 5000;

struct check_options {
    std::optional<std::string> config;
    std::uint64_t timeout_ms = default_timeout_ms;
    bool json = false;
};

std::variant<check_options, std::string> parse(const std::vector<std::string>& args) {
    check_options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        bool has_value = i + 1 < args.size();
        if (a == "--config" && has_value) {
            o.config = args[++i];
        } else if (a == "--timeout-ms" && has_value) {
            // 1 ms to 10 min: a bound, not a way to wait forever.
            if (auto bad = process::parse_count(a, args[++i], 1, o.timeout_ms))
                return *bad;
            if (o.timeout_ms > 600000)
                return a + " must be at most 600000";
        } else if (a == "--json") {
            o.json = true;
        } else {
            return "unknown or incomplete option \"" + a + "\"";
        }
    }
    if (!o.config)
        if (const char* env = std::getenv("GATE_CONFIG"))
            o.config = env;
    if (!o.config)
        return "no configuration: pass --config <path> or set GATE_CONFIG";
    return o;
}

std::string shown(std::string_view text, std::size_t most) {
    return protocol::printable(text, most);
}

void print_table(const std::vector<check::row>& rows) {
    std::printf("%-9s %-28s %-7s %s\n", "KIND", "NAME", "STATUS", "WHAT");
    for (const auto& r : rows) {
        // What failed, then the hint; an ok row says what answered and how fast.
        std::string what = r.target.empty() || r.detail.starts_with(r.target)
                               ? r.detail
                               : r.target + ": " + r.detail;
        if (r.status == "ok")
            what += " (" + std::to_string(r.took.count()) + " ms)";
        if (!r.hint.empty())
            what += " -- hint: " + r.hint;
        if (!r.unchecked.empty())
            what += " -- not checked: " + r.unchecked;
        std::printf("%-9s %-28s %-7s %s\n", r.kind.c_str(), shown(r.name, 200).c_str(),
                    r.status.c_str(), shown(what, 2000).c_str());
    }
}

void print_json(const std::vector<check::row>& rows, bool all_up) {
    json::array list;
    for (const auto& r : rows) {
        json::object o{{"kind", r.kind},     {"name", r.name},     {"status", r.status},
                       {"target", r.target}, {"detail", r.detail}, {"ms", r.took.count()}};
        if (!r.hint.empty())
            o["hint"] = r.hint;
        if (!r.unchecked.empty())
            o["notChecked"] = r.unchecked;
        list.push_back(std::move(o));
    }
    json::object doc{{"ok", all_up}, {"rows", std::move(list)}};
    std::puts(json::serialize(doc).c_str());
}

} // namespace

int run_check_command(const std::vector<std::string>& args) {
    auto parsed = parse(args);
    if (auto* bad = std::get_if<std::string>(&parsed)) {
        std::fprintf(stderr, "gate check: %s\n%s", bad->c_str(), usage);
        return 2;
    }
    auto& opt = std::get<check_options>(parsed);
    auto loaded = config::load(*opt.config);
    if (!loaded.errors.empty()) {
        for (const auto& e : loaded.errors)
            std::fprintf(stderr, "config error at %s: %s\n",
                         e.pointer.empty() ? "(document)" : e.pointer.c_str(), e.reason.c_str());
        std::fprintf(stderr, "gate check: configuration invalid (%zu error%s): nothing tried\n",
                     loaded.errors.size(), loaded.errors.size() == 1 ? "" : "s");
        return 2;
    }
    // Every failure is in its row; the clients' own log lines would say it twice.
    spdlog::set_level(spdlog::level::off);
    auto rows = check::run_checks(*loaded.doc, std::chrono::milliseconds(opt.timeout_ms),
                                  [](const char* name) { return std::getenv(name); });
    std::size_t down = 0;
    for (const auto& r : rows)
        down += r.status == "down";
    if (opt.json) {
        print_json(rows, down == 0);
    } else {
        print_table(rows);
        std::printf("%zu checked: %zu ok, %zu down\n", rows.size(), rows.size() - down, down);
    }
    return down == 0 ? 0 : 1;
}

} // namespace gate::gateway::program
