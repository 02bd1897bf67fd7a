#include "gateway/operations/metrics.hpp"

#include "process/process_collector.hpp"
#include "process/version.hpp"

#include <array>

namespace gate::gateway {

namespace {
const prometheus::Histogram::BucketBoundaries latency_buckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
constexpr std::array<std::string_view, 4> discovery_outcomes = {"applied", "unchanged", "rejected",
                                                                "error"};
constexpr std::array<std::string_view, 20> known_methods = {"initialize",
                                                            "ping",
                                                            "tools/list",
                                                            "tools/call",
                                                            "prompts/list",
                                                            "prompts/get",
                                                            "resources/list",
                                                            "resources/templates/list",
                                                            "resources/read",
                                                            "resources/subscribe",
                                                            "resources/unsubscribe",
                                                            "completion/complete",
                                                            "logging/setLevel",
                                                            "tasks/get",
                                                            "tasks/list",
                                                            "tasks/cancel",
                                                            "tasks/result",
                                                            "tasks/update",
                                                            "server/discover",
                                                            "http"};
static_assert(known_methods.size() + 2 == metrics::method_slots);

// The label's place: a known method's, then notification, then other.
std::size_t method_slot(std::string_view method) {
    for (std::size_t i = 0; i < known_methods.size(); ++i)
        if (known_methods[i] == method)
            return i;
    return known_methods.size() + (method.starts_with("notifications/") ? 0 : 1);
}

std::string_view slot_label(std::size_t slot) {
    if (slot < known_methods.size())
        return known_methods[slot];
    return slot == known_methods.size() ? "notification" : "other";
}
} // namespace

std::string_view method_label(std::string_view method) {
    return slot_label(method_slot(method));
}

metrics::metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(prometheus::BuildCounter()
                    .Name("gate_requests_total")
                    .Help("MCP requests by method and outcome")
                    .Register(*registry_)),
      duration_(prometheus::BuildHistogram()
                    .Name("gate_request_duration_seconds")
                    .Help("End-to-end MCP request latency")
                    .Register(*registry_)),
      upstream_requests_(prometheus::BuildCounter()
                             .Name("gate_upstream_requests_total")
                             .Help("Calls to upstreams by outcome")
                             .Register(*registry_)),
      upstream_duration_(prometheus::BuildHistogram()
                             .Name("gate_upstream_request_duration_seconds")
                             .Help("Upstream call latency")
                             .Register(*registry_)),
      breaker_(prometheus::BuildGauge()
                   .Name("gate_upstream_breaker_state")
                   .Help("Circuit breaker state: 0 closed, 1 half-open, 2 open")
                   .Register(*registry_)),
      endpoint_healthy_(prometheus::BuildGauge()
                            .Name("gate_upstream_endpoint_healthy")
                            .Help("Replicas of multi-endpoint upstreams: 1 in rotation, 0 ejected")
                            .Register(*registry_)),
      rejections_(prometheus::BuildCounter()
                      .Name("gate_http_rejections_total")
                      .Help("Requests refused before MCP handling")
                      .Register(*registry_)),
      tenant_requests_(prometheus::BuildCounter()
                           .Name("gate_tenant_requests_total")
                           .Help("Requests of each tenant's principals, by outcome")
                           .Register(*registry_)),
      policy_decisions_(prometheus::BuildCounter()
                            .Name("gate_policy_decisions_total")
                            .Help("Decisions of the policy, by decision (allow, deny, step_up) "
                                  "and deciding rule (default when none did)")
                            .Register(*registry_)),
      definition_changes_(prometheus::BuildCounter()
                              .Name("gate_definition_changes_total")
                              .Help("Tool definitions that differ from their pin (the lock "
                                    "file's, or the first seen), once per new digest")
                              .Register(*registry_)),
      account_events_(prometheus::BuildCounter()
                          .Name("gate_user_account_events_total")
                          .Help("Users' logins, refreshes and refusals at user-account upstreams")
                          .Register(*registry_)),
      tenant_upstream_calls_(prometheus::BuildCounter()
                                 .Name("gate_tenant_upstream_calls_total")
                                 .Help("Upstream invocations charged to each tenant")
                                 .Register(*registry_)),
      shared_degraded_(prometheus::BuildCounter()
                           .Name("gate_shared_state_degraded_total")
                           .Help("Operations on shared state (other than budgets) that fell "
                                 "back to per-instance state because the store did not answer")
                           .Register(*registry_)),
      fanout_(prometheus::BuildHistogram()
                  .Name("gate_request_upstream_calls")
                  .Help("Upstream calls caused by one request")
                  .Register(*registry_)
                  .Add({}, prometheus::Histogram::BucketBoundaries{0, 1, 2, 4, 8, 16, 32, 64})) {
    register_feed_series();
    register_discovery_series();
    budget_degraded_ = &prometheus::BuildCounter()
                            .Name("gate_budget_degraded_total")
                            .Help("Budget checks that fell back to per-instance enforcement "
                                  "because shared state was unreachable")
                            .Register(*registry_)
                            .Add({});
    register_session_series();
    register_hook_series();
    register_supervision();
    prometheus::BuildGauge()
        .Name("gate_build_info")
        .Help("Build information; always 1")
        .Register(*registry_)
        .Add({{"version", std::string(process::gate_release)}})
        .Set(1);
}

// What the audit sinks, trace export and gate --record did (advanced at each scrape).
void metrics::register_feed_series() {
    audit_dropped_ = &prometheus::BuildCounter()
                          .Name("gate_audit_events_dropped_total")
                          .Help("Audit events dropped: a sink's buffer was full, or a webhook "
                                "receiver refused their batch")
                          .Register(*registry_)
                          .Add({});
    auto& webhook = prometheus::BuildCounter()
                        .Name("gate_audit_webhook_events_total")
                        .Help("Audit events by what became of them at webhook sinks: delivered, "
                              "or a failed delivery attempt of a batch (retried)")
                        .Register(*registry_);
    webhook_delivered_ = &webhook.Add({{"outcome", "delivered"}});
    webhook_failures_ = &webhook.Add({{"outcome", "attempt_failed"}});
    auto& spans = prometheus::BuildCounter()
                      .Name("gate_trace_spans_total")
                      .Help("Spans of trace export by what became of them: exported, dropped (a "
                            "full buffer, a refused export), or a failed export attempt")
                      .Register(*registry_);
    spans_ = {&spans.Add({{"outcome", "exported"}}), &spans.Add({{"outcome", "dropped"}}),
              &spans.Add({{"outcome", "attempt_failed"}})};
    auto& recording = prometheus::BuildCounter()
                          .Name("gate_recording_events_total")
                          .Help("Events of gate --record by what became of them: written, or "
                                "dropped (the recorder fell behind, a line over the size cap, "
                                "a disk that refused it)")
                          .Register(*registry_);
    recording_ = {&recording.Add({{"outcome", "written"}}),
                  &recording.Add({{"outcome", "dropped"}})};
}

void metrics::register_discovery_series() {
    auto& syncs = prometheus::BuildCounter()
                      .Name("gate_discovery_syncs_total")
                      .Help("Discovery polls by outcome: applied, unchanged, rejected (parse or "
                            "merged validation failed), error (fetch failed)")
                      .Register(*registry_);
    for (std::size_t i = 0; i < discovery_outcomes.size(); ++i)
        discovery_syncs_[i] = &syncs.Add({{"outcome", std::string(discovery_outcomes[i])}});
    discovery_refused_ = &prometheus::BuildCounter()
                              .Name("gate_discovery_refused_upstreams_total")
                              .Help("Discovered upstreams left out of an applied discovery "
                                    "document because they asked for a strategy, secret, "
                                    "credential host or header the discovery.allowed* lists "
                                    "do not allow (once per document applied)")
                              .Register(*registry_)
                              .Add({});
}

// Sessions held, and those ended or refused to make room (gateway/mcp/session_shares).
void metrics::register_session_series() {
    downstream_sessions_ = &prometheus::BuildGauge()
                                .Name("gate_downstream_sessions")
                                .Help("Downstream MCP sessions held")
                                .Register(*registry_)
                                .Add({});
    bridged_sessions_ = &prometheus::BuildGauge()
                             .Name("gate_bridged_sessions")
                             .Help("Bridged upstream sessions held, one per client and upstream")
                             .Register(*registry_)
                             .Add({});
    auto& evictions = prometheus::BuildCounter()
                          .Name("gate_session_evictions_total")
                          .Help("Idle downstream sessions ended to make room for a new one, by "
                                "reason: principal_share (the caller held its share) or "
                                "table_full (taken from whoever held the most)")
                          .Register(*registry_);
    auto& refusals = prometheus::BuildCounter()
                         .Name("gate_session_refusals_total")
                         .Help("initialize refused because every session that could make room "
                               "was in use, by reason: principal_share or table_full")
                         .Register(*registry_);
    tools_dropped_ = &prometheus::BuildCounter()
                          .Name("gate_tools_dropped_total")
                          .Help("Tools left out of the lists because their name breaks the "
                                "specification's rule once namespaced, by upstream and reason: "
                                "too_long (over 128 characters), charset, empty")
                          .Register(*registry_);
    tool_limit_refusals_ = &prometheus::BuildCounter()
                                .Name("gate_tool_limit_refusals_total")
                                .Help("tools/call refused by a limit of upstreams[].toolLimits, "
                                      "by upstream and limit: everyone (requestsPerMinute) or "
                                      "principal (perPrincipalPerMinute)")
                                .Register(*registry_);
    icons_dropped_ = &prometheus::BuildCounter()
                          .Name("gate_icons_dropped_total")
                          .Help("Icons left out of lists and serverInfo, by upstream and reason: "
                                "other_origin (not the upstream's own origin), scheme, "
                                "malformed, data_too_big")
                          .Register(*registry_);
    outbox_dropped_ = &prometheus::BuildCounter()
                           .Name("gate_session_messages_dropped_total")
                           .Help("Server-to-client messages dropped, oldest first, from a "
                                 "session's GET-stream queue past its bound (256 messages, 4 MiB)")
                           .Register(*registry_)
                           .Add({});
    for (std::size_t i = 0; i < session_reasons.size(); ++i) {
        session_evictions_[i] = &evictions.Add({{"reason", std::string(session_reasons[i])}});
        session_refusals_[i] = &refusals.Add({{"reason", std::string(session_reasons[i])}});
    }
}

void metrics::register_supervision() {
    auto& restarts = prometheus::BuildCounter()
                         .Name("gate_actor_restarts_total")
                         .Help("Actors the supervisor respawned after they stopped, by kind")
                         .Register(*registry_);
    auto& given_up = prometheus::BuildCounter()
                         .Name("gate_actor_given_up_total")
                         .Help("Actors that crashed past their restart intensity (5 within 60 "
                               "s), by kind: an upstream's is left stopped and its calls "
                               "refused until a reload; any other stops gate")
                         .Register(*registry_);
    for (std::size_t i = 0; i < actors::supervised_kinds.size(); ++i) {
        actor_restarts_[i] = &restarts.Add({{"actor", std::string(actors::supervised_kinds[i])}});
        actors_given_up_[i] = &given_up.Add({{"actor", std::string(actors::supervised_kinds[i])}});
    }
}

void metrics::session_evicted(std::string_view reason) {
    for (std::size_t i = 0; i < session_reasons.size(); ++i)
        if (session_reasons[i] == reason)
            session_evictions_[i]->Increment();
}

void metrics::tool_dropped(const std::string& upstream, std::string_view reason) {
    std::lock_guard lock(mutex_);
    tools_dropped_->Add({{"upstream", upstream}, {"reason", std::string(reason)}}).Increment();
}

void metrics::tool_limit_refused(const std::string& upstream, std::string_view limit) {
    std::lock_guard lock(mutex_);
    tool_limit_refusals_->Add({{"upstream", upstream}, {"limit", std::string(limit)}}).Increment();
}

void metrics::icon_dropped(const std::string& upstream, std::string_view reason) {
    std::lock_guard lock(mutex_);
    icons_dropped_->Add({{"upstream", upstream}, {"reason", std::string(reason)}}).Increment();
}

void metrics::session_refused(std::string_view reason) {
    for (std::size_t i = 0; i < session_reasons.size(); ++i)
        if (session_reasons[i] == reason)
            session_refusals_[i]->Increment();
}

void metrics::scrape_side::session_counts(std::size_t downstream, std::size_t bridged) {
    m_.downstream_sessions_->Set(static_cast<double>(downstream));
    m_.bridged_sessions_->Set(static_cast<double>(bridged));
}

namespace {
constexpr std::array<std::string_view, 5> upstream_outcomes = {"ok", "rate_limited", "circuit_open",
                                                               "connect_error", "error"};

template <std::size_t N>
std::size_t index_of(const std::array<std::string_view, N>& names, std::string_view name) {
    for (std::size_t i = 0; i < N; ++i)
        if (names[i] == name)
            return i;
    return N;
}
} // namespace

metrics::method_series& metrics::series_for(std::string_view method) {
    auto slot = method_slot(method);
    auto& s = methods_[slot];
    if (!s.duration)
        s.duration = &duration_.Add({{"method", std::string(slot_label(slot))}}, latency_buckets);
    return s;
}

metrics::upstream_series& metrics::series_for_upstream(const std::string& id) {
    auto it = upstreams_.find(id);
    if (it != upstreams_.end())
        return it->second;
    auto& s = upstreams_[id];
    s.duration = &upstream_duration_.Add({{"upstream", id}}, latency_buckets);
    return s;
}

void metrics::request(std::string_view method, protocol::outcome outcome, double seconds,
                      std::int64_t upstream_calls) {
    std::lock_guard lock(mutex_);
    auto& s = series_for(method);
    auto*& c = s.by_outcome[static_cast<std::size_t>(outcome)];
    if (!c)
        c = &requests_.Add({{"method", std::string(method_label(method))},
                            {"outcome", std::string(protocol::metric_name(outcome))}});
    c->Increment();
    s.duration->Observe(seconds);
    fanout_.Observe(static_cast<double>(upstream_calls));
}

void metrics::upstream(const std::string& id, std::string_view outcome, double seconds) {
    std::lock_guard lock(mutex_);
    auto& s = series_for_upstream(id);
    auto o = index_of(upstream_outcomes, outcome);
    if (o < upstream_outcomes.size()) {
        auto*& c = s.by_outcome[o];
        if (!c)
            c = &upstream_requests_.Add({{"upstream", id}, {"outcome", std::string(outcome)}});
        c->Increment();
    } else {
        upstream_requests_.Add({{"upstream", id}, {"outcome", std::string(outcome)}}).Increment();
    }
    s.duration->Observe(seconds);
}

void metrics::discovery_sync(std::string_view outcome, std::size_t refused) {
    for (std::size_t i = 0; i < discovery_outcomes.size(); ++i)
        if (discovery_outcomes[i] == outcome)
            discovery_syncs_[i]->Increment();
    if (refused > 0)
        discovery_refused_->Increment(static_cast<double>(refused));
}

namespace {
// A tally only grows; its counter is advanced to it.
void advance(prometheus::Counter* c, std::int64_t to) {
    auto by = static_cast<double>(to) - c->Value();
    if (by > 0)
        c->Increment(by);
}
} // namespace

void metrics::scrape_side::span_counts(std::int64_t dropped, std::int64_t exported,
                                       std::int64_t failures) {
    advance(m_.spans_[0], exported);
    advance(m_.spans_[1], dropped);
    advance(m_.spans_[2], failures);
}

void metrics::scrape_side::audit_counts(std::int64_t dropped, std::int64_t delivered,
                                        std::int64_t failures) {
    advance(m_.audit_dropped_, dropped);
    advance(m_.webhook_delivered_, delivered);
    advance(m_.webhook_failures_, failures);
}

void metrics::scrape_side::recording_counts(std::int64_t written, std::int64_t dropped) {
    advance(m_.recording_[0], written);
    advance(m_.recording_[1], dropped);
}

void metrics::scrape_side::supervision_counts(const actors::supervision_tally& tally) {
    for (std::size_t i = 0; i < actors::supervised_kinds.size(); ++i) {
        advance(m_.actor_restarts_[i], tally.restarts[i].load());
        advance(m_.actors_given_up_[i], tally.given_up[i].load());
    }
}

void metrics::scrape_side::outbox_dropped(std::int64_t dropped) {
    advance(m_.outbox_dropped_, dropped);
}

void metrics::budget_degraded() {
    budget_degraded_->Increment();
}

void metrics::shared_state_degraded(std::string_view state) {
    shared_degraded_.Add({{"state", std::string(state)}}).Increment();
}

void metrics::shared_store(store_news news) {
    std::lock_guard lock(mutex_); // every io thread's store tells it
    if (!shared_up_)
        shared_up_ = &prometheus::BuildGauge()
                          .Name("gate_shared_state_up")
                          .Help("Whether the shared store (server.redisUrl) answers: 1 or 0")
                          .Register(*registry_)
                          .Add({});
    stores_down_ += news == store_news::down ? 1 : news == store_news::back ? -1 : 0;
    shared_up_->Set(stores_down_ == 0 ? 1 : 0);
}

void metrics::rejection(std::string_view reason) {
    rejections_.Add({{"reason", std::string(reason)}}).Increment();
}

void metrics::tenant_request(const std::string& tenant, protocol::outcome outcome,
                             std::int64_t upstream_calls) {
    tenant_requests_.Add({{"tenant", tenant}, {"outcome", std::string(protocol::name(outcome))}})
        .Increment();
    auto& calls = tenant_upstream_calls_.Add({{"tenant", tenant}});
    if (upstream_calls > 0)
        calls.Increment(static_cast<double>(upstream_calls));
}

void metrics::policy_decision(std::string_view decision, const std::optional<std::string>& rule) {
    // Every authorized request counts one: the series is looked up in a map of its own (rule
    // ids are the configuration's, few), not by Family::Add's label set (2,400 instructions).
    std::string key(decision);
    key += '\n';
    if (rule)
        key += *rule;
    std::lock_guard lock(mutex_);
    auto [it, made] = policy_series_.try_emplace(std::move(key), nullptr);
    if (made)
        it->second = &policy_decisions_.Add(
            {{"decision", std::string(decision)}, {"rule", rule ? *rule : std::string()}});
    it->second->Increment();
}

void metrics::definition_change(const std::string& upstream, std::string_view change,
                                std::string_view action) {
    definition_changes_
        .Add({{"upstream", upstream},
              {"change", std::string(change)},
              {"action", std::string(action)}})
        .Increment();
}

void metrics::account_event(const std::string& upstream, std::string_view event) {
    account_events_.Add({{"upstream", upstream}, {"event", std::string(event)}}).Increment();
}

void metrics::register_hook_series() {
    hook_decisions_ = &prometheus::BuildCounter()
                           .Name("gate_decision_hook_decisions_total")
                           .Help("Verdicts of the decision hook, by stage, decision (allow, "
                                 "deny) and source (hook, cache)")
                           .Register(*registry_);
    hook_errors_ = &prometheus::BuildCounter()
                        .Name("gate_decision_hook_errors_total")
                        .Help("Questions the decision hook did not decide, by stage and kind "
                              "(timeout, unreachable, busy, status, malformed, too_large)")
                        .Register(*registry_);
    hook_failed_open_ = &prometheus::BuildCounter()
                             .Name("gate_decision_hook_failed_open_total")
                             .Help("Invocations let through because the decision hook did not "
                                   "decide and onError is allow, by stage")
                             .Register(*registry_);
    auto& questions = prometheus::BuildGauge()
                          .Name("gate_decision_hook_questions")
                          .Help("Questions to the decision hook: out now, and waiting for a turn "
                                "(maxConcurrent)")
                          .Register(*registry_);
    hook_out_ = &questions.Add({{"state", "out"}});
    hook_waiting_ = &questions.Add({{"state", "waiting"}});
    hook_duration_ = &prometheus::BuildHistogram()
                          .Name("gate_decision_hook_duration_seconds")
                          .Help("Time of one exchange with the decision hook, by stage")
                          .Register(*registry_);
}

namespace {

// The index of `name` in `names`, or names.size() for another.
template <std::size_t N>
std::size_t index_in(const std::array<std::string_view, N>& names, std::string_view name) {
    std::size_t i = 0;
    while (i < N && names[i] != name)
        ++i;
    return i;
}

// The series kept in `slot`, made by `make` on first use (racing makers get the same series:
// Family::Add returns the one already there).
template <class Series, class Make> Series& kept_series(std::atomic<Series*>& slot, Make make) {
    auto* s = slot.load(std::memory_order_acquire);
    if (!s) {
        s = &make();
        slot.store(s, std::memory_order_release);
    }
    return *s;
}

} // namespace

void metrics::hook_side::decision(std::string_view stage, std::string_view decision, bool cached) {
    auto make = [&]() -> prometheus::Counter& {
        return m_.hook_decisions_->Add({{"stage", std::string(stage)},
                                        {"decision", std::string(decision)},
                                        {"source", cached ? "cache" : "hook"}});
    };
    auto s = index_in(hook_stages, stage);
    bool known = decision == "allow" || decision == "deny";
    if (s == hook_stages.size() || !known) {
        make().Increment();
        return;
    }
    auto i = (s * 2 + (decision == "deny" ? 1 : 0)) * 2 + (cached ? 1 : 0);
    kept_series(m_.hook_decision_series_[i], make).Increment();
}

void metrics::hook_side::error(std::string_view stage, std::string_view kind) {
    auto make = [&]() -> prometheus::Counter& {
        return m_.hook_errors_->Add({{"stage", std::string(stage)}, {"kind", std::string(kind)}});
    };
    auto s = index_in(hook_stages, stage);
    auto k = index_in(hook_error_kinds, kind);
    if (s == hook_stages.size() || k == hook_error_kinds.size()) {
        make().Increment();
        return;
    }
    kept_series(m_.hook_error_series_[s * hook_error_kinds.size() + k], make).Increment();
}

void metrics::hook_side::failed_open(std::string_view stage) {
    m_.hook_failed_open_->Add({{"stage", std::string(stage)}}).Increment(); // a failure: rare
}

void metrics::hook_side::questions_moved(std::int64_t out, std::int64_t waiting) {
    if (out != 0)
        m_.hook_out_->Increment(static_cast<double>(out));
    if (waiting != 0)
        m_.hook_waiting_->Increment(static_cast<double>(waiting));
}

void metrics::hook_side::latency(std::string_view stage, double seconds) {
    static const prometheus::Histogram::BucketBoundaries buckets{
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    auto make = [&]() -> prometheus::Histogram& {
        return m_.hook_duration_->Add({{"stage", std::string(stage)}}, buckets);
    };
    auto s = index_in(hook_stages, stage);
    if (s == hook_stages.size()) {
        make().Observe(seconds);
        return;
    }
    kept_series(m_.hook_duration_series_[s], make).Observe(seconds);
}

void metrics::scrape_side::upstream_guards(const std::vector<guard_sample>& samples) {
    std::lock_guard lock(m_.mutex_);
    std::map<std::string, prometheus::Gauge*> breakers;
    std::map<std::pair<std::string, std::string>, prometheus::Gauge*> endpoints;
    for (const auto& s : samples) {
        auto* g = &m_.breaker_.Add({{"upstream", s.upstream}});
        g->Set(s.breaker_state);
        breakers.emplace(s.upstream, g);
        if (s.endpoints.size() < 2)
            continue;
        for (const auto& [url, healthy] : s.endpoints) {
            auto* e = &m_.endpoint_healthy_.Add({{"upstream", s.upstream}, {"endpoint", url}});
            e->Set(healthy ? 1 : 0);
            endpoints.emplace(std::pair(s.upstream, url), e);
        }
    }
    for (const auto& [id, g] : m_.breaker_series_)
        if (!breakers.contains(id))
            m_.breaker_.Remove(g);
    for (const auto& [key, g] : m_.endpoint_series_)
        if (!endpoints.contains(key))
            m_.endpoint_healthy_.Remove(g);
    m_.breaker_series_ = std::move(breakers);
    m_.endpoint_series_ = std::move(endpoints);
}

void metrics::scrape_side::budget_standings(const std::vector<budget_sample>& samples) {
    std::lock_guard lock(m_.mutex_);
    if (!m_.budgets_)
        m_.budgets_ = std::make_unique<budget_gauges>(*m_.registry_);
    m_.budgets_->show(samples);
}

std::string metrics::serialize() const {
    return process::exposition_with_process_metrics(registry_->Collect());
}

} // namespace gate::gateway
