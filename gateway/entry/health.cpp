#include "gateway/entry/health.hpp"

#include "actors/guards/endpoint_rotation.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "transport/io/answered_on.hpp"
#include "transport/io/fan_out.hpp"

#include <cmath>

namespace gate::gateway {

namespace json = boost::json;

json::object owner_json(const config::owner& owner) {
    json::object o;
    if (owner.org)
        o["org"] = *owner.org;
    if (owner.team)
        o["team"] = *owner.team;
    if (owner.contact)
        o["contact"] = *owner.contact;
    return o;
}

json::object labels_json(const config::string_map& labels) {
    json::object l;
    for (const auto& [k, v] : labels)
        l[k] = v;
    return l;
}

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

health_checker::health_checker(std::vector<std::shared_ptr<upstream_client>> upstreams,
                               bool show_detail, std::chrono::milliseconds budget,
                               std::chrono::milliseconds reuse)
    : upstreams_(std::move(upstreams)), show_detail_(show_detail), budget_(budget), memo_(reuse) {}

namespace {
std::string_view circuit_state_name(actors::circuit_breaker::state s) {
    switch (s) {
    case actors::circuit_breaker::state::closed:
        return "closed";
    case actors::circuit_breaker::state::half_open:
        return "half-open";
    case actors::circuit_breaker::state::open:
        return "open";
    }
    return "closed";
}
} // namespace

asio::awaitable<health_report> health_checker::check() {
    co_return co_await memo_.get([this]() -> asio::awaitable<health_report> {
        try {
            co_return co_await probe();
        } catch (const std::exception& e) {
            health_report report;
            report.body = {{"status", "unavailable"}, {"error", e.what()}};
            report.detailed = report.body;
            co_return report;
        }
    });
}

namespace {

// An upstream that takes each caller's credential has no session of gate's own to ping: the
// handshake its health probe sends (with no credential) is opened as every session is (a shared
// upstream's ping goes on one opened so), where a caller's new session would go: the endpoints
// in rotation from the first, then the ejected ones as a last resort (rotation_order), on to
// the next only when one cannot be connected to (refused, unresolvable, TLS; it is ejected,
// passive health), all within the one budget. An answer, a 401 or 403 asking for a caller's
// credential included, is up. Why it is down otherwise; nullopt when up.
asio::awaitable<std::optional<std::string>>
answers_without_credential(upstream_client& u, std::chrono::milliseconds budget) {
    auto deadline = clock::now() + budget;
    std::vector<bool> in_rotation;
    for (const auto& e : u.health().endpoints())
        in_rotation.push_back(e.in_rotation);
    std::size_t turn = 0; // a copy: the probe does not move the clients' turn on
    std::string last = "no endpoint answered within " + std::to_string(budget.count()) + " ms";
    for (auto index : actors::rotation_order(in_rotation, turn)) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        if (left.count() <= 0)
            break;
        auto got = co_await u.health().handshake_without_credential(left, index);
        if (auto* f = std::get_if<upstream_failure>(&got)) {
            last = f->message;
            if (f->what == upstream_failure::kind::connect_error)
                continue;
            co_return last;
        }
        const auto& h = std::get<gate::gateway::bare_handshake>(got);
        if (h.status == 401 || h.status == 403 || h.result)
            co_return std::nullopt;
        co_return "its handshake without a credential answered HTTP " + std::to_string(h.status);
    }
    co_return last;
}

// `detailed` as GET /health answers it when auth is on: status, latency, rotation and breaker
// only; nothing that names where an upstream lives, whose it is, or why it is down.
json::object without_detail(const json::object& detailed) {
    auto body = detailed;
    for (auto& u : body["upstreams"].as_array()) {
        auto& o = u.as_object();
        for (auto key : {"urls", "error", "owner", "labels"})
            o.erase(key);
        if (auto* eps = o.if_contains("endpoints"))
            for (auto& e : eps->as_array())
                e.as_object().erase("url");
    }
    return body;
}

} // namespace

asio::awaitable<health_report> health_checker::probe() {
    struct result {
        bool up;
        double latency_ms;
        std::string error;
    };
    auto results = co_await transport::fan_out<result>(
        upstreams_.size(), [this](std::size_t i) -> asio::awaitable<result> {
            auto start = clock::now();
            call_context ctx;
            ctx.timeout = budget_;
            ctx.use = actors::guard_use::upkeep; // not a client's invocation: no rate-limit slot
            auto elapsed = [&] {
                return std::chrono::duration<double, std::milli>(clock::now() - start).count();
            };
            if (upstreams_[i]->per_caller()) {
                auto down = co_await answers_without_credential(*upstreams_[i], budget_);
                co_return result{!down, elapsed(), down.value_or("")};
            }
            auto reply = co_await upstreams_[i]->sender().request("ping", {}, ctx);
            double ms = elapsed();
            if (auto* f = std::get_if<upstream_failure>(&reply))
                co_return result{false, ms, f->message};
            co_return result{true, ms, {}};
        });
    health_report report;
    json::array ups;
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (!results[i])
            results[i] = result{false, 0, "probe failed"};
        const auto& cfg = upstreams_[i]->config();
        json::object u{{"id", cfg.id},
                       {"status", results[i]->up ? "up" : "down"},
                       // Tenths of a millisecond: what a person reads (8.4).
                       {"latencyMs", std::round(results[i]->latency_ms * 10) / 10}};
        json::array urls;
        for (const auto& url : cfg.urls)
            urls.push_back(json::string(url));
        u["urls"] = std::move(urls);
        if (!results[i]->error.empty())
            u["error"] = results[i]->error;
        if (cfg.owner)
            u["owner"] = owner_json(*cfg.owner);
        if (!cfg.labels.empty())
            u["labels"] = labels_json(cfg.labels);
        if (auto eps = upstreams_[i]->health().endpoints(); eps.size() > 1) {
            json::array list; // the balancer's rotation
            for (const auto& e : eps)
                list.push_back(json::object{{"inRotation", e.in_rotation}, {"url", e.url}});
            u["endpoints"] = std::move(list);
        }
        u["breaker"] = circuit_state_name(upstreams_[i]->guards().breaker_state());
        report.any_up = report.any_up || results[i]->up;
        ups.push_back(std::move(u));
    }
    report.detailed = {{"status", report.any_up ? "ok" : "unavailable"},
                       {"upstreams", std::move(ups)}};
    report.body = show_detail_ ? report.detailed : without_detail(report.detailed);
    co_return report;
}

health_watch::health_watch(const view_source& live, bool show_detail)
    : live_(live), show_detail_(show_detail) {}

void health_watch::adopt(const federation_view&) {
    now_ = nullptr; // the next round's checker is made over the new view's clients
}

asio::awaitable<health_report> health_watch::report() {
    if (first_)
        co_return co_await transport::answered_on<health_report>(
            first_ex_, [first = first_] { return first->report(); }, health_report{});
    if (!now_) {
        auto view = live_.current_view();
        std::vector<std::shared_ptr<upstream_client>> clients;
        for (std::size_t i = 0; i < view->size(); ++i)
            clients.push_back(view->client_at(i));
        now_ = std::make_shared<health_checker>(std::move(clients), show_detail_);
    }
    auto checker = now_; // a reload may replace it while this round runs
    co_return co_await checker->check();
}

void health_watch::ask_through(health_watch& first, asio::any_io_executor there) {
    first_ = &first;
    first_ex_ = std::move(there);
    now_ = nullptr;
}

} // namespace gate::gateway
