// The gateway-side cost of a warm federated tools/list (issue 15's target: 20 upstreams x 50
// tools, at most 15 us without a policy and 25 us with a deny-by-default glob policy): what
// the router does for one request once every upstream's list is cached (merge, namespace,
// filter per principal, cut the first page of 200, seal the cursor) and serializing the
// answer. No sockets: the upstreams' cost is theirs. Prints one JSON line per case.
//   list_bench [iterations]   (default 20000; three rounds, best and worst reported)
#include "actors/federation/federation.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace gate;
namespace json = boost::json;
constexpr auto full = protocol::full_profile;

namespace {

std::shared_ptr<const gate::actors::snapshot> federation_of(int upstreams, bool with_policy) {
    auto doc = std::make_shared<config::document>();
    for (int i = 0; i < upstreams; ++i) {
        config::upstream u;
        u.id = "up" + std::to_string(i);
        u.urls = {"http://127.0.0.1:1/mcp"};
        u.namespace_ = "ns" + std::to_string(i);
        doc->upstreams.push_back(u);
    }
    if (with_policy) {
        // 100 rules, deny by default: 99 for other groups, the last grants every upstream's
        // tools by glob to the caller's group.
        config::policy p;
        for (int i = 0; i < 99; ++i) {
            config::subjects s;
            s.groups = {"team-" + std::to_string(i)};
            p.rules.push_back({"team-" + std::to_string(i),
                               s,
                               {{"up" + std::to_string(i % upstreams),
                                 {"tools/call"},
                                 {"tool-" + std::to_string(i) + "-*"}}}});
        }
        config::subjects bench;
        bench.groups = {"bench"};
        config::rule last{"bench", bench, {}};
        for (int i = 0; i < upstreams; ++i)
            last.allow.push_back({"up" + std::to_string(i), {"tools/call"}, {"tool-*"}});
        p.rules.push_back(std::move(last));
        doc->policy = std::move(p);
    }
    return gate::actors::make_snapshot(doc, 1);
}

json::array tools_of(int upstream, int n) {
    json::array a;
    for (int i = 0; i < n; ++i)
        a.push_back(json::object{
            {"name", "tool-" + std::to_string(upstream) + "-" + std::to_string(i)},
            {"description", "A tool of upstream " + std::to_string(upstream)},
            {"inputSchema",
             json::object{{"type", "object"},
                          {"properties", json::object{{"x", json::object{{"type", "string"}}}}}}}});
    return a;
}

} // namespace

int main(int argc, char** argv) {
    int iterations = argc > 1 ? std::stoi(argv[1]) : 20000;
    constexpr int upstreams = 20, per_upstream = 50;
    gate::policy::principal caller{"bench-user", "https://idp.example", {"bench"}, {}};
    for (bool with_policy : {false, true}) {
        gate::actors::federation fed(federation_of(upstreams, with_policy),
                                     protocol::cursor_codec::with_random_key());
        auto t0 = std::chrono::steady_clock::time_point{};
        for (int i = 0; i < upstreams; ++i)
            fed.store(static_cast<std::size_t>(i), protocol::list_kind::tools, full,
                      tools_of(i, per_upstream), t0);
        std::vector<double> rounds;
        std::size_t served = 0, bytes = 0;
        for (int round = 0; round < 3; ++round) {
            auto start = std::chrono::steady_clock::now();
            for (int i = 0; i < iterations; ++i) {
                auto page = fed.page(protocol::list_kind::tools, full, std::nullopt, 42, &caller);
                const auto& answer = std::get<gate::actors::list_answer>(page);
                served = answer.items_served;
                // As the transport puts it on the wire (list_response).
                std::string wire = R"({"jsonrpc":"2.0","id":1,"result":)";
                wire += answer.result_text();
                wire += "}";
                bytes = wire.size();
            }
            std::chrono::duration<double, std::micro> took =
                std::chrono::steady_clock::now() - start;
            rounds.push_back(took.count() / iterations);
        }
        std::sort(rounds.begin(), rounds.end());
        std::printf("{\"policy\":%s,\"upstreams\":%d,\"tools\":%d,\"served\":%zu,\"bytes\":%zu,"
                    "\"usBest\":%.2f,\"usMedian\":%.2f,\"usWorst\":%.2f}\n",
                    with_policy ? "true" : "false", upstreams, upstreams * per_upstream, served,
                    bytes, rounds[0], rounds[1], rounds[2]);
    }
}
