// `gate definitions lock --config gate.json [--output gate.lock]`: writes the lock file of
// pinned definitions for the federation the configuration describes (docs/configuration.md,
// "Pinned definitions"). gate starts as it would (on 127.0.0.1, a port the kernel picks, its
// upstreams' credentials from the environment), lists every upstream's tools as its own, writes
// the file (or standard output) and stops. Exit status: 0 written, 1 an upstream could not be
// listed (nothing is written), 2 the command or the configuration is wrong.
#include "gateway/program/definitions_command.hpp"

#include "config/load.hpp"
#include "gateway/program/gateway_host.hpp"
#include "gateway/program/io_loop.hpp"
#include "process/logging.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gate::gateway::program {

namespace {

// The document with every pin off: the lock records what the upstreams list, withholding
// nothing.
std::shared_ptr<const config::document> unpinned(const config::document& doc) {
    auto copy = std::make_shared<config::document>(doc);
    copy->definitions.pin = "off";
    for (auto& u : copy->upstreams)
        u.pin_definitions.reset();
    return copy;
}

// The configuration as gate would load it, but for its lock file, which this command writes
// (it may not exist yet).
config::load_result load_without_lock(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    boost::system::error_code ec;
    auto root = boost::json::parse(text.str(), ec);
    if (!in || ec || !root.is_object())
        return config::load(path); // its own error says what is wrong
    if (auto* d = root.as_object().if_contains("definitions"); d && d->is_object())
        d->as_object().erase("lockFile");
    return config::parse(boost::json::serialize(root), config::acceptance::enforced,
                         std::filesystem::path(path).parent_path().string());
}

bool write_out(const std::optional<std::string>& output, const std::string& text) {
    if (!output) {
        std::fputs(text.c_str(), stdout);
        return true;
    }
    auto temp = *output + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush())
            return false;
    }
    return std::rename(temp.c_str(), output->c_str()) == 0; // never a half-written lock
}

} // namespace

int run_definitions_command(const std::vector<std::string>& args) {
    std::optional<std::string> config_path, output;
    bool ok = !args.empty() && args[0] == "lock";
    for (std::size_t i = 1; ok && i < args.size(); ++i) {
        if (args[i] == "--config" && i + 1 < args.size())
            config_path = args[++i];
        else if (args[i] == "--output" && i + 1 < args.size())
            output = args[++i];
        else
            ok = false;
    }
    if (!ok || !config_path) {
        std::fprintf(stderr,
                     "usage: gate definitions lock --config <gate.json> [--output <file>]\n");
        return 2;
    }
    auto loaded = load_without_lock(*config_path);
    if (!loaded.errors.empty()) {
        std::fprintf(stderr, "gate: configuration invalid: %s\n",
                     config::one_line(loaded.errors).c_str());
        return 2;
    }
    process::setup_logging("text", "warn"); // stderr; standard output may be the lock file
    std::optional<gateway_host> host;
    try {
        host.emplace(unpinned(*loaded.doc), gateway_host::options{});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gate: %s\n", e.what());
        return 2;
    }
    int status = 1;
    host->definitions_lock([&](bool listed, std::string text) {
        if (!listed)
            std::fprintf(stderr, "gate: %s; nothing written\n", text.c_str());
        else if (!write_out(output, text))
            std::fprintf(stderr, "gate: cannot write %s\n", output->c_str());
        else
            status = 0;
        host->drain(std::chrono::seconds(0));
    });
    run_io(host->io(), std::chrono::microseconds(0));
    return status;
}

} // namespace gate::gateway::program
