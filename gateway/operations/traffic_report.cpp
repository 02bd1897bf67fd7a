#include "gateway/operations/traffic_report.hpp"

#include "protocol/utc_timestamp.hpp"

#include <cmath>

namespace gate::gateway {

namespace json = boost::json;

namespace {

using wall_clock = std::chrono::system_clock;

wall_clock::time_point wall_of(traffic_history::time_point t, const traffic_facts& f) {
    return f.wall - std::chrono::duration_cast<wall_clock::duration>(f.now - t);
}

std::int64_t epoch_ms(wall_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// Milliseconds as people read them: a tenth of a millisecond is enough for a chart.
json::value ms(const std::optional<double>& v) {
    if (!v)
        return nullptr;
    return std::round(*v * 10.0) / 10.0;
}

const char* breaker_name(std::uint8_t s) {
    switch (s) {
    case 0:
        return "closed";
    case 1:
        return "half-open";
    default:
        return "open";
    }
}

json::object change_json(const actors::guard_change& c, const traffic_facts::upstream& u,
                         const traffic_facts& f) {
    auto at = wall_of(c.at, f);
    json::object o{{"at", protocol::utc_timestamp(at)}, {"atMs", epoch_ms(at)}};
    switch (c.what) {
    case actors::guard_change::kind::breaker:
        o["kind"] = "breaker";
        o["from"] = breaker_name(c.from);
        o["to"] = breaker_name(c.to);
        break;
    case actors::guard_change::kind::endpoint:
        o["kind"] = "endpoint";
        o["url"] = c.endpoint < u.urls.size() ? u.urls[c.endpoint] : std::string();
        o["from"] = c.from ? "in" : "out";
        o["to"] = c.to ? "in" : "out";
        break;
    case actors::guard_change::kind::given_up:
        o["kind"] = "given_up"; // the supervisor gave up on its actor: open until a reload
        o["to"] = "open";
        break;
    }
    return o;
}

json::object outcomes_json(const std::array<std::uint32_t, traffic_history::outcome_count>& n) {
    json::object o;
    for (std::size_t k = 0; k < n.size(); ++k)
        if (n[k])
            o[protocol::outcome_names[k]] = n[k];
    return o;
}

} // namespace

json::object series_json(const traffic_history::window& w, wall_clock::time_point wall,
                         traffic_history::time_point now) {
    json::array requests, p50, p99;
    json::object by_outcome; // outcome -> per bucket, only outcomes seen in the window
    for (std::size_t k = 0; k < traffic_history::outcome_count; ++k)
        if (w.total.outcomes[k])
            by_outcome[protocol::outcome_names[k]] = json::array();
    for (const auto& p : w.points) {
        requests.emplace_back(p.requests);
        p50.push_back(ms(p.p50_ms));
        p99.push_back(ms(p.p99_ms));
        for (std::size_t k = 0; k < traffic_history::outcome_count; ++k)
            if (auto* a = by_outcome.if_contains(protocol::outcome_names[k]))
                a->as_array().emplace_back(p.outcomes[k]);
    }
    auto start = wall - std::chrono::duration_cast<wall_clock::duration>(now - w.total.start);
    double seconds = w.total.seconds > 0 ? w.total.seconds : 1;
    return {{"start", epoch_ms(start)},
            {"currentSeconds", std::round(w.points.back().seconds * 10.0) / 10.0},
            {"requests", std::move(requests)},
            {"outcomes", std::move(by_outcome)},
            {"p50Ms", std::move(p50)},
            {"p99Ms", std::move(p99)},
            {"window",
             {{"requests", w.total.requests},
              {"perSecond",
               std::round(static_cast<double>(w.total.requests) / seconds * 100.0) / 100.0},
              {"outcomes", outcomes_json(w.total.outcomes)},
              {"p50Ms", ms(w.total.p50_ms)},
              {"p99Ms", ms(w.total.p99_ms)}}}};
}

json::object traffic_report(const traffic_facts& f) {
    json::array upstreams;
    for (const auto& u : f.upstreams) {
        json::object entry{{"id", u.id}};
        if (auto w = f.history.read(u.id, f.now))
            entry["series"] = series_json(*w, f.wall, f.now);
        json::array changes;
        for (const auto& c : u.changes)
            changes.push_back(change_json(c, u, f));
        entry["transitions"] = std::move(changes);
        upstreams.push_back(std::move(entry));
    }
    json::array refusals;
    for (const auto& r : f.history.refusals_of(f.viewer)) {
        auto at = wall_of(r.at, f);
        json::object o{{"at", protocol::utc_timestamp(at)},
                       {"atMs", epoch_ms(at)},
                       {"method", r.method},
                       {"outcome", protocol::name(r.outcome)}};
        if (!r.name.empty())
            o["name"] = r.name;
        if (!r.upstream.empty())
            o["upstream"] = r.upstream;
        o["ruleId"] = r.rule.empty() ? json::value(nullptr) : json::value(r.rule);
        refusals.push_back(std::move(o));
    }
    json::object out{{"instance", {{"host", f.host}, {"pid", f.pid}}},
                     {"bucketSeconds", traffic_history::bucket_width.count()},
                     {"buckets", traffic_history::bucket_count},
                     {"now", epoch_ms(f.wall)},
                     {"upstreams", std::move(upstreams)}};
    if (auto w = f.gate_series ? f.history.read("", f.now) : std::nullopt)
        out["unrouted"] = series_json(*w, f.wall, f.now);
    out["refusals"] = std::move(refusals);
    return out;
}

} // namespace gate::gateway
