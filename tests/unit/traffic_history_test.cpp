// The console's traffic history (gateway/operations/traffic_history) in virtual time: buckets
// by outcome, latency quantiles, a window that forgets, series kept by id across reloads, and
// refusals told only to their own caller. With the report that /api/traffic answers.
#include "gateway/operations/traffic_history.hpp"
#include "gateway/operations/traffic_report.hpp"

#include <gtest/gtest.h>

namespace gate::gateway {
namespace {

using namespace std::chrono_literals;
using protocol::outcome;
using time_point = traffic_history::time_point;

const time_point t0 = time_point(1000h); // on a bucket's start

traffic_history two_upstreams(std::uint64_t version = 1) {
    traffic_history h;
    h.follow(version, {"alpha", "beta"});
    return h;
}

TEST(TrafficHistory, CountsEachOutcomeInItsBucketUnderItsUpstream) {
    auto h = two_upstreams();
    auto alpha = h.slot(1, 0, "alpha");
    auto beta = h.slot(1, 1, "beta");
    ASSERT_NE(alpha, beta);
    ASSERT_NE(alpha, traffic_history::unrouted);
    h.record(alpha, outcome::ok, 2ms, t0);
    h.record(alpha, outcome::ok, 2ms, t0 + 1s);
    h.record(alpha, outcome::denied, 100us, t0 + 2s);
    h.record(alpha, outcome::error, 5ms, t0 + 12s); // the next bucket
    h.record(beta, outcome::upstream_down, 1ms, t0 + 3s);
    auto w = h.read("alpha", t0 + 15s);
    ASSERT_TRUE(w);
    ASSERT_EQ(w->points.size(), traffic_history::bucket_count);
    const auto& last = w->points.back();
    const auto& before = w->points[w->points.size() - 2];
    EXPECT_EQ(before.start, t0);
    EXPECT_EQ(before.requests, 3u);
    EXPECT_EQ(before.outcomes[static_cast<std::size_t>(outcome::ok)], 2u);
    EXPECT_EQ(before.outcomes[static_cast<std::size_t>(outcome::denied)], 1u);
    EXPECT_DOUBLE_EQ(before.seconds, 10.0);
    EXPECT_EQ(last.requests, 1u);
    EXPECT_DOUBLE_EQ(last.seconds, 5.0); // the current bucket, as far as it went
    EXPECT_EQ(w->total.requests, 4u);
    EXPECT_EQ(h.read("beta", t0 + 15s)->total.requests, 1u);
    EXPECT_FALSE(h.read("gamma", t0));
}

TEST(TrafficHistory, ForgetsWhatIsOlderThanTheWindow) {
    auto h = two_upstreams();
    auto alpha = h.slot(1, 0, "alpha");
    h.record(alpha, outcome::ok, 1ms, t0);
    auto window = traffic_history::bucket_width * traffic_history::bucket_count;
    EXPECT_EQ(h.read("alpha", t0 + window - 1s)->total.requests, 1u);
    EXPECT_EQ(h.read("alpha", t0 + window)->total.requests, 0u);
    // The same ring slot a window later starts from nothing.
    h.record(alpha, outcome::error, 1ms, t0 + window);
    auto w = h.read("alpha", t0 + window);
    EXPECT_EQ(w->total.requests, 1u);
    EXPECT_EQ(w->total.outcomes[static_cast<std::size_t>(outcome::ok)], 0u);
}

TEST(TrafficHistory, LatencyBinsAreLogScaleAndQuantilesFallInTheirBin) {
    EXPECT_EQ(traffic_history::latency_bin(0us), 0u);
    EXPECT_EQ(traffic_history::latency_bin(3us), 3u);
    for (std::size_t b = 4; b + 1 < traffic_history::latency_bins; ++b) {
        auto low = traffic_history::bin_floor_us(b);
        auto high = traffic_history::bin_ceiling_us(b);
        ASSERT_LT(low, high) << b;
        EXPECT_EQ(traffic_history::latency_bin(std::chrono::microseconds(low)), b);
        EXPECT_EQ(traffic_history::latency_bin(std::chrono::microseconds(high - 1)), b);
        EXPECT_LE(static_cast<double>(high - low) / static_cast<double>(low), 0.26) << b;
    }
    EXPECT_EQ(traffic_history::latency_bin(1h), traffic_history::latency_bins - 1);

    auto h = two_upstreams();
    auto alpha = h.slot(1, 0, "alpha");
    for (int i = 0; i < 98; ++i)
        h.record(alpha, outcome::ok, 10ms, t0);
    h.record(alpha, outcome::ok, 400ms, t0);
    h.record(alpha, outcome::ok, 400ms, t0);
    auto w = h.read("alpha", t0 + 1s);
    ASSERT_TRUE(w->total.p50_ms && w->total.p99_ms);
    EXPECT_NEAR(*w->total.p50_ms, 10.0, 1.5);
    EXPECT_NEAR(*w->total.p99_ms, 400.0, 50.0);
    EXPECT_FALSE(w->points.front().p50_ms); // no request, no quantile
}

TEST(TrafficHistory, SeriesAreKeptByIdAcrossReloads) {
    auto h = two_upstreams(1);
    h.record(h.slot(1, 1, "beta"), outcome::ok, 1ms, t0);
    h.record(h.slot(1, 0, "alpha"), outcome::ok, 1ms, t0);
    h.follow(2, {"beta", "gamma"}); // alpha retired, beta moved
    EXPECT_EQ(h.read("beta", t0 + 1s)->total.requests, 1u);
    EXPECT_FALSE(h.read("alpha", t0 + 1s));
    EXPECT_EQ(h.read("gamma", t0 + 1s)->total.requests, 0u);
    // A request of the old configuration finds its upstream by id, not by its old place.
    EXPECT_EQ(h.slot(1, 1, "beta"), h.slot(2, 0, "beta"));
    EXPECT_EQ(h.slot(1, 0, "alpha"), traffic_history::unrouted);
    h.follow(1, {"alpha", "beta"}); // older: nothing changes
    EXPECT_EQ(h.version(), 2u);
    EXPECT_FALSE(h.read("alpha", t0 + 1s));
}

TEST(TrafficHistory, AWindowIsMadeOnlyByAnUpstreamsFirstRequest) {
    // A thousand configured upstreams cost their ids until requests reach them: the first
    // request after a reload does not zero a window for each.
    traffic_history h;
    std::vector<std::string> ids;
    for (int i = 0; i < 1000; ++i)
        ids.push_back("u" + std::to_string(i));
    h.follow(1, ids);
    EXPECT_EQ(h.windows_held(), 0u);
    h.record(h.slot(1, 500, "u500"), outcome::ok, 1ms, t0);
    EXPECT_EQ(h.windows_held(), 1u);
    EXPECT_EQ(h.read("u500", t0 + 1s)->total.requests, 1u);
    EXPECT_EQ(h.read("u499", t0 + 1s)->total.requests, 0u);
    // Kept across a reload that keeps the upstream; none made for the new ones.
    ids.push_back("u1000");
    h.follow(2, ids);
    EXPECT_EQ(h.windows_held(), 1u);
    EXPECT_EQ(h.read("u500", t0 + 1s)->total.requests, 1u);
}

TEST(TrafficHistory, RefusalsAreToldToTheirOwnCallerOnlyNewestFirst) {
    traffic_history h;
    h.refused(t0, "tools/call", "alpha__secret_tool", "alpha", outcome::denied, "no-secrets",
              "iss\nolga");
    h.refused(t0 + 1s, "tools/call", "alpha__echo", "alpha", outcome::rate_limited, "",
              "iss\nolga");
    h.refused(t0 + 2s, "prompts/get", "beta__p", "beta", outcome::forbidden, "r", "iss\nivan");
    auto olga = h.refusals_of("iss\nolga");
    ASSERT_EQ(olga.size(), 2u);
    EXPECT_EQ(olga[0].name, "alpha__echo");
    EXPECT_EQ(olga[1].rule, "no-secrets");
    EXPECT_EQ(h.refusals_of("iss\nivan").size(), 1u);
    EXPECT_TRUE(h.refusals_of("").empty());
    for (int i = 0; i < 200; ++i)
        h.refused(t0, "tools/call", std::string(500, 'x'), "", outcome::denied, "", "");
    auto anonymous = h.refusals_of("");
    EXPECT_EQ(anonymous.size(), traffic_history::refusal_count); // a fixed ring
    EXPECT_EQ(anonymous[0].name.size(), 200u);                   // client text kept short
    EXPECT_TRUE(h.refusals_of("iss\nolga").empty());
    EXPECT_TRUE(traffic_history::is_refusal(outcome::budget_exhausted));
    EXPECT_FALSE(traffic_history::is_refusal(outcome::upstream_down));
}

TEST(TrafficHistory, TwoIoThreadsHistoriesAddUpToOne) {
    // What each io thread recorded (docs/io-threads.md), and what one thread recording it all
    // would have said.
    auto first = two_upstreams(), second = two_upstreams(), one = two_upstreams();
    auto alpha = first.slot(1, 0, "alpha");
    auto beta = first.slot(1, 1, "beta");
    for (auto* h : {&first, &one}) {
        h->record(alpha, outcome::ok, 2ms, t0);
        h->record(alpha, outcome::denied, 1ms, t0 + 1s);
        h->record(beta, outcome::ok, 8ms, t0 - 20min); // out of the window by now
    }
    for (auto* h : {&second, &one}) {
        h->record(alpha, outcome::ok, 40ms, t0 + 2s);
        h->record(beta, outcome::upstream_down, 3ms, t0 + 30s);
        h->record(traffic_history::unrouted, outcome::ok, 1ms, t0 + 40s);
    }
    first.refused(t0 + 1s, "tools/call", "alpha__x", "alpha", outcome::denied, "r1", "iss\nann");
    second.refused(t0 + 3s, "tools/call", "alpha__y", "alpha", outcome::denied, "r2", "iss\nann");
    first.refused(t0 + 5s, "tools/call", "alpha__z", "alpha", outcome::denied, "r3", "iss\nann");
    traffic_history merged(first); // the answering thread's, copied
    merged.add(second);
    for (const auto* id : {"alpha", "beta", ""}) {
        auto got = merged.read(id, t0 + 1min);
        auto want = one.read(id, t0 + 1min);
        ASSERT_TRUE(got && want) << id;
        EXPECT_EQ(got->total.requests, want->total.requests) << id;
        EXPECT_EQ(got->total.outcomes, want->total.outcomes) << id;
        EXPECT_EQ(got->total.p99_ms, want->total.p99_ms) << id;
        for (std::size_t i = 0; i < got->points.size(); ++i)
            EXPECT_EQ(got->points[i].requests, want->points[i].requests) << id << " " << i;
    }
    EXPECT_EQ(merged.read("alpha", t0 + 1min)->total.requests, 3u);
    // The copy is a copy: the thread's own history is as it was.
    EXPECT_EQ(first.read("alpha", t0 + 1min)->total.requests, 2u);
    // Refusals of both, newest first, as one ring.
    auto ann = merged.refusals_of("iss\nann");
    ASSERT_EQ(ann.size(), 3u);
    EXPECT_EQ(ann[0].rule, "r3");
    EXPECT_EQ(ann[1].rule, "r2");
    EXPECT_EQ(ann[2].rule, "r1");
    for (int i = 0; i < 100; ++i)
        second.refused(t0 + 10s, "tools/call", "n", "", outcome::denied, "", "iss\nbob");
    traffic_history again(first);
    again.add(second);
    EXPECT_EQ(again.refusals_of("iss\nbob").size(), traffic_history::refusal_count);
    EXPECT_TRUE(again.refusals_of("iss\nann").empty()) << "older than the ring holds";
}

TEST(TrafficReport, ShowsSeriesTransitionsAndOnlyTheViewersRefusals) {
    auto h = two_upstreams();
    h.record(h.slot(1, 0, "alpha"), outcome::ok, 2ms, t0);
    h.record(h.slot(1, 0, "alpha"), outcome::denied, 1ms, t0);
    h.refused(t0, "tools/call", "alpha__x", "alpha", outcome::denied, "rule-1", "iss\nolga");
    h.refused(t0, "tools/call", "alpha__y", "alpha", outcome::denied, "rule-2", "iss\nivan");
    std::vector<actors::guard_change> changes = {
        {t0 + 1s, actors::guard_change::kind::breaker, 0, 2, 0},
        {t0 + 2s, actors::guard_change::kind::endpoint, 1, 0, 1},
    };
    auto wall = std::chrono::system_clock::time_point(std::chrono::hours(500000));
    traffic_facts f{
        h,           {{"alpha", {"http://a1/mcp", "http://a2/mcp"}, changes}, {"beta", {}, {}}},
        "iss\nolga", t0 + 5s,
        wall,        "gate-2",
        812};
    auto r = traffic_report(f);
    // Whose traffic: this instance's only (a fleet's other instances keep their own).
    EXPECT_EQ(r.at("instance").as_object(),
              (boost::json::object{{"host", "gate-2"}, {"pid", 812}}));
    EXPECT_EQ(r.at("bucketSeconds").as_int64(), 10);
    const auto& alpha = r.at("upstreams").as_array()[0].as_object();
    const auto& series = alpha.at("series").as_object();
    EXPECT_EQ(series.at("window").at("requests").as_uint64(), 2u);
    EXPECT_EQ(series.at("outcomes").at("denied").as_array().back().as_uint64(), 1u);
    EXPECT_FALSE(series.at("outcomes").as_object().contains("error"));
    const auto& moves = alpha.at("transitions").as_array();
    ASSERT_EQ(moves.size(), 2u);
    EXPECT_EQ(moves[0].at("to").as_string(), "open");
    EXPECT_EQ(moves[1].at("url").as_string(), "http://a2/mcp");
    EXPECT_EQ(moves[1].at("to").as_string(), "out");
    // Wall times: the change came 4 s before the report.
    EXPECT_EQ(moves[0].at("atMs").as_int64(), r.at("now").as_int64() - 4000);
    const auto& refusals = r.at("refusals").as_array();
    ASSERT_EQ(refusals.size(), 1u);
    EXPECT_EQ(refusals[0].at("ruleId").as_string(), "rule-1");
    EXPECT_FALSE(refusals[0].as_object().contains("who"));
}

} // namespace
} // namespace gate::gateway
