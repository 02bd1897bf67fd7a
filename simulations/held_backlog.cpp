// What a disabled webhook's backlog costs everyone else's claims (docs/benchmarks.md): a
// SQLite store with N waiting deliveries of a disabled webhook, then rounds of one event for
// an enabled webhook and one claim. `--unheld` marks the backlog as not held (as every
// delivery was before holding existed), so the same run shows both sides.
#include "hooks/store.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sqlite3.h>
#include <string>

using namespace gate::hooks;
using namespace std::chrono_literals;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: held_backlog <backlog> [--unheld]\n");
        return 2;
    }
    const int backlog = std::atoi(argv[1]);
    const bool unheld = argc > 2 && std::string(argv[2]) == "--unheld";
    auto dir = std::filesystem::temp_directory_path() / "gate-held-backlog";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    auto path = (dir / "hooks.db").string();
    {
        auto db = open_sqlite_store(path);
        const clock_time t0{std::chrono::hours(500000)};
        auto off = db->create_webhook("org", {"deploy.success", "https://a.example/", {}}, t0);
        db->create_webhook("org", {"deploy.failed", "https://b.example/", {}}, t0);
        for (int i = 0; i < backlog; ++i)
            db->ingest("org", "deploy.success", "{}", t0);
        db->set_enabled("org", off.id, false, t0);
        if (unheld) {
            sqlite3* raw = nullptr;
            sqlite3_open(path.c_str(), &raw);
            sqlite3_exec(raw, "UPDATE deliveries SET held = 0", nullptr, nullptr, nullptr);
            sqlite3_close(raw);
        }
        constexpr int rounds = 200;
        std::size_t claimed = 0;
        auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < rounds; ++i) {
            db->ingest("org", "deploy.failed", "{}", t0 + 1s);
            claimed += db->claim_due(t0 + 2s, 64, 30s).size();
        }
        std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        std::printf("backlog %d %s: %zu claimed, %.3f ms per event and claim\n", backlog,
                    unheld ? "not held" : "held", claimed, took.count() / rounds);
    }
    std::filesystem::remove_all(dir);
}
