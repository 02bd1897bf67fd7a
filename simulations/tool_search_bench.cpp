// Tool search over a federation of ten thousand tools (issue 50: at most 2 ms p50): the
// index built from 10,000 tool definitions in the shape real servers give them (a verb and
// a noun or two in the name, a sentence of description drawn from a shared vocabulary), then
// queries of one to four words, each timed alone. Prints one JSON line: the build's time, the
// queries' p50, p90 and p99 in microseconds, and the hits found. No sockets and no policy: a
// filter that accepts every tool, the most work a search does.
//   tool_search_bench [tools] [queries]   (default 10000 and 2000)
#include "protocol/tool_index.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::array<const char*, 24> verbs = {
    "get",   "list", "create", "update", "delete", "search",   "read",    "write",
    "send",  "open", "close",  "find",   "sync",   "export",   "import",  "run",
    "start", "stop", "query",  "fetch",  "upload", "download", "approve", "merge"};
constexpr std::array<const char*, 40> nouns = {
    "file",    "folder",   "issue",   "ticket",   "invoice", "customer", "order",  "email",
    "message", "channel",  "user",    "group",    "repo",    "branch",   "commit", "pull",
    "build",   "pipeline", "deploy",  "cluster",  "pod",     "secret",   "table",  "row",
    "report",  "chart",    "event",   "calendar", "meeting", "note",     "page",   "doc",
    "image",   "video",    "payment", "refund",   "account", "project",  "task",   "alert"};

} // namespace

int main(int argc, char** argv) {
    int tools = argc > 1 ? std::atoi(argv[1]) : 10000;
    int queries = argc > 2 ? std::atoi(argv[2]) : 2000;
    std::mt19937 rng(42);
    auto pick = [&](const auto& a) { return std::string(a[rng() % a.size()]); };
    gate::protocol::tool_index idx;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < tools; ++i) {
        auto verb = pick(verbs), noun = pick(nouns), other = pick(nouns);
        auto name = "ns" + std::to_string(i % 1000) + "__" + verb + "_" + noun;
        auto description = "Use this tool to " + verb + " a " + noun + " of the " + other +
                           " in the workspace, with its " + pick(nouns) + " and " + pick(nouns) +
                           " as the server keeps them.";
        idx.add(name, "", description);
    }
    auto built = std::chrono::steady_clock::now() - t0;
    std::vector<double> us;
    std::size_t found = 0;
    auto anyone = [](std::uint32_t) { return true; };
    for (int q = 0; q < queries; ++q) {
        std::string query;
        for (int w = 0, n = 1 + static_cast<int>(rng() % 4); w < n; ++w)
            query += (w % 2 ? pick(nouns) : pick(verbs)) + " ";
        auto start = std::chrono::steady_clock::now();
        auto hits = idx.search(query, 10, anyone);
        us.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                .count());
        found += hits.size();
    }
    std::sort(us.begin(), us.end());
    auto at = [&](double p) { return us[static_cast<std::size_t>(p * (us.size() - 1))]; };
    std::printf("{\"tools\":%d,\"queries\":%d,\"build_ms\":%.1f,\"p50_us\":%.1f,\"p90_us\":%.1f,"
                "\"p99_us\":%.1f,\"hits_per_query\":%.1f}\n",
                tools, queries, std::chrono::duration<double, std::milli>(built).count(), at(0.5),
                at(0.9), at(0.99), static_cast<double>(found) / queries);
}
