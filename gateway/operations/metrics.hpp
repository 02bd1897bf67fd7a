// The gateway's Prometheus series (spec: "Metrics"); label sets are frozen by contract.
#pragma once

#include "actors/supervision/supervision_tally.hpp"
#include "gateway/operations/budget_gauges.hpp"
#include "gateway/operations/method_counts.hpp"
#include "protocol/outcome.hpp"

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gate::gateway {

class metrics final : public upstream_counts, public session_counts {
public:
    metrics();
    // Its roles hold it by reference (at_scrape(), decision_hook()): never copied.
    metrics(const metrics&) = delete;
    metrics& operator=(const metrics&) = delete;

    void request(std::string_view method, protocol::outcome outcome, double seconds,
                 std::int64_t upstream_calls);
    void upstream(const std::string& id, std::string_view outcome, double seconds);
    void rejection(std::string_view reason);
    // A request of a tenant's principal, refusals included, and the upstream invocations it
    // caused (gate_tenant_requests_total, gate_tenant_upstream_calls_total).
    void tenant_request(const std::string& tenant, protocol::outcome outcome,
                        std::int64_t upstream_calls);
    // One decision of the policy (gate_policy_decisions_total): allow, deny or step_up, and
    // the deciding rule (empty when the default decided: no rule id is empty).
    void policy_decision(std::string_view decision, const std::optional<std::string>& rule);
    // A tool definition that differs from its pin, told once per new digest
    // (gate_definition_changes_total{upstream, change: changed | new | unpinnable, action: warn |
    // block}).
    // A user's account at a user-account upstream (gate_user_account_events_total{upstream,
    // event: loginStarted | connected | loginFailed | refreshed | refreshFailed | refused}).
    void account_event(const std::string& upstream, std::string_view event);
    void definition_change(const std::string& upstream, std::string_view change,
                           std::string_view action);
    // The shared store (gateway/fleet/fleet_store): an operation that fell back to per-instance
    // state because the store did not answer, by what it was for (budgets count in the spec's
    // gate_budget_degraded_total, the rest in gate_shared_state_degraded_total{state}), and
    // whether the store answers now (gate_shared_state_up, shown only with a store: 1 while
    // no io thread's connection to it is down).
    void budget_degraded();
    // One discovery poll: applied, unchanged, rejected or error (gate_discovery_syncs_total),
    // and the discovered upstreams it left out (gate_discovery_refused_upstreams_total).
    void discovery_sync(std::string_view outcome, std::size_t refused);
    void shared_state_degraded(std::string_view state);
    // An io thread's store made (the series shown), or its connection down or back again.
    enum class store_news { made, down, back };
    void shared_store(store_news news);
    // A tools/call refused by one of its upstream's toolLimits
    // (gate_tool_limit_refusals_total{upstream,limit}; limit: everyone, principal).
    void tool_limit_refused(const std::string& upstream, std::string_view limit);
    // A tool left out of the lists for its name (gate_tools_dropped_total{upstream,reason}).
    void tool_dropped(const std::string& upstream, std::string_view reason) override;
    // The method groups' counts, under the names above.
    void count(const std::string& upstream, std::string_view outcome, double seconds) override {
        this->upstream(upstream, outcome, seconds);
    }
    void count_eviction(std::string_view reason) override { session_evicted(reason); }
    void count_refusal(std::string_view reason) override { session_refused(reason); }
    // An icon left out of a list or a serverInfo (gate_icons_dropped_total{upstream,reason}:
    // other_origin, scheme, malformed, data_too_big; protocol/icons.hpp).
    void icon_dropped(const std::string& upstream, std::string_view reason);

    // The upstream guards' samples (read at each scrape): the breaker of every live upstream
    // and the rotation state of each replica of multi-endpoint ones.
    struct guard_sample {
        std::string upstream;
        int breaker_state;                                   // 0 closed, 1 half-open, 2 open
        std::vector<std::pair<std::string, bool>> endpoints; // url, in rotation
    };

    // What /metrics samples as it stands at each scrape (gateway/entry/http_face.cpp): the
    // tallies of the sinks, the recording, the outboxes and supervision advanced to their
    // count, the guards, sessions and budgets set.
    class scrape_side {
    public:
        // What the audit sinks did, as they stand (read at each scrape): events dropped (a buffer
        // full, a batch the receiver refused) and webhook deliveries.
        void audit_counts(std::int64_t dropped, std::int64_t delivered, std::int64_t failures);
        // What trace export did, as it stands: spans exported, dropped, failed export attempts.
        void span_counts(std::int64_t dropped, std::int64_t exported, std::int64_t failures);
        // gate --record: events written and dropped (tallies, advanced at each scrape).
        void recording_counts(std::int64_t written, std::int64_t dropped);
        // Messages dropped from full GET-stream outboxes, as the session table counts them.
        void outbox_dropped(std::int64_t dropped);

        // The upstream guards as they stand (read at each scrape): the breaker of every live
        // upstream and the rotation state of each replica of multi-endpoint ones. Series of
        // upstreams a reload retired are removed.
        void upstream_guards(const std::vector<guard_sample>& samples);
        // Sessions held now: downstream (Mcp-Session-Id) and bridged upstream sessions.
        void session_counts(std::size_t downstream, std::size_t bridged);

        // What supervision did, as it stands (read at each scrape): actors restarted and actors
        // given up on past their restart intensity, by kind (gate_actor_restarts_total{actor},
        // gate_actor_given_up_total{actor}).
        void supervision_counts(const actors::supervision_tally& tally);

        // The budgets as they stand (read at each scrape; gateway/operations/budget_gauges).
        void budget_standings(const std::vector<budget_sample>& samples);

    private:
        friend class metrics;
        explicit scrape_side(metrics& m) : m_(m) {}
        metrics& m_;
    };
    scrape_side& at_scrape() { return scrape_; }

    // The decision hook's series (gateway/pipeline/decision_hook_client.cpp).
    class hook_side {
    public:
        // The decision hook (policy.decisionHook): a verdict by stage, decision (allow, deny) and
        // source (hook, cache); a failure by stage and kind (timeout, unreachable, busy, status,
        // malformed); an exchange's latency by stage.
        void decision(std::string_view stage, std::string_view decision, bool cached);
        void error(std::string_view stage, std::string_view kind);
        void latency(std::string_view stage, double seconds);
        // A failure let through by onError "allow" (gate_decision_hook_failed_open_total{stage}).
        void failed_open(std::string_view stage);
        // Questions out to the hook now and waiting for a turn
        // (gate_decision_hook_questions{state}), moved by one io thread's change: every thread
        // asks with its own turns, and the gauges are the process's sum.
        void questions_moved(std::int64_t out, std::int64_t waiting);

    private:
        friend class metrics;
        explicit hook_side(metrics& m) : m_(m) {}
        metrics& m_;
    };
    hook_side& decision_hook() { return hook_; }

    // Text exposition format of every series, process collectors included.
    std::string serialize() const;

    // method_label's values: the methods MCP names, `notification` and `other`.
    static constexpr std::size_t method_slots = 22;

private:
    // A downstream session ended to make room for a new one, and a new one refused, by reason
    // (`principal_share`, `table_full`: gateway/mcp/session_shares).
    void session_evicted(std::string_view reason);
    void session_refused(std::string_view reason);

    // Family::Add hashes the label set and takes a lock on every call; the request path uses
    // series resolved once and kept here instead.
    struct method_series {
        prometheus::Histogram* duration = nullptr;
        std::array<prometheus::Counter*, 8> by_outcome{}; // indexed by protocol::outcome
    };
    struct upstream_series {
        prometheus::Histogram* duration = nullptr;
        std::array<prometheus::Counter*, 5> by_outcome{}; // indexed like upstream_outcomes
    };
    void register_supervision();
    // The constructor's series, by what they count.
    void register_feed_series();
    void register_discovery_series();
    void register_session_series();
    void register_hook_series();
    method_series& series_for(std::string_view method);
    upstream_series& series_for_upstream(const std::string& id);

    std::shared_ptr<prometheus::Registry> registry_;
    prometheus::Family<prometheus::Counter>& requests_;
    prometheus::Family<prometheus::Histogram>& duration_;
    prometheus::Family<prometheus::Counter>& upstream_requests_;
    prometheus::Family<prometheus::Histogram>& upstream_duration_;
    prometheus::Family<prometheus::Gauge>& breaker_;
    prometheus::Family<prometheus::Gauge>& endpoint_healthy_;
    std::map<std::string, prometheus::Gauge*> breaker_series_;
    std::map<std::pair<std::string, std::string>, prometheus::Gauge*> endpoint_series_;
    prometheus::Gauge* downstream_sessions_ = nullptr;
    prometheus::Gauge* bridged_sessions_ = nullptr;
    static constexpr std::array<std::string_view, 2> session_reasons = {"principal_share",
                                                                        "table_full"};
    std::array<prometheus::Counter*, 2> session_evictions_{};
    prometheus::Counter* outbox_dropped_ = nullptr;
    std::array<prometheus::Counter*, actors::supervised_kinds.size()> actor_restarts_{};
    std::array<prometheus::Counter*, actors::supervised_kinds.size()> actors_given_up_{};
    std::array<prometheus::Counter*, 2> session_refusals_{};
    prometheus::Family<prometheus::Counter>& rejections_;
    prometheus::Family<prometheus::Counter>* tools_dropped_ = nullptr;
    prometheus::Family<prometheus::Counter>* tool_limit_refusals_ = nullptr;
    prometheus::Family<prometheus::Counter>* icons_dropped_ = nullptr;
    prometheus::Family<prometheus::Counter>* hook_decisions_ = nullptr;
    prometheus::Family<prometheus::Counter>* hook_errors_ = nullptr;
    prometheus::Family<prometheus::Counter>* hook_failed_open_ = nullptr;
    prometheus::Family<prometheus::Histogram>* hook_duration_ = nullptr;
    // The hook's series, each resolved on its first use (a series shows from its first count,
    // as Family::Add made it) and kept: three per question looked up by label cost 1,800
    // instructions of a saturated io thread. Indexed by hook_stages, hook_decisions (allow,
    // deny) and source (hook, cache), and hook_error_kinds.
    static constexpr std::array<std::string_view, 3> hook_stages = {"call", "result",
                                                                    "serverRequest"};
    static constexpr std::array<std::string_view, 5> hook_error_kinds = {
        "timeout", "unreachable", "busy", "status", "malformed"};
    std::array<std::atomic<prometheus::Counter*>, 3 * 2 * 2> hook_decision_series_{};
    std::array<std::atomic<prometheus::Counter*>, 3 * 5> hook_error_series_{};
    std::array<std::atomic<prometheus::Histogram*>, 3> hook_duration_series_{};
    prometheus::Gauge* hook_out_ = nullptr;
    prometheus::Gauge* hook_waiting_ = nullptr;
    prometheus::Family<prometheus::Counter>& tenant_requests_;
    prometheus::Family<prometheus::Counter>& policy_decisions_;
    prometheus::Family<prometheus::Counter>& definition_changes_;
    prometheus::Family<prometheus::Counter>& account_events_;
    prometheus::Family<prometheus::Counter>& tenant_upstream_calls_;
    prometheus::Counter* audit_dropped_ = nullptr;
    prometheus::Counter* webhook_delivered_ = nullptr;
    prometheus::Counter* webhook_failures_ = nullptr;
    std::array<prometheus::Counter*, 3> spans_{};     // exported, dropped, attempt_failed
    std::array<prometheus::Counter*, 2> recording_{}; // written, dropped
    prometheus::Counter* budget_degraded_ = nullptr;
    std::array<prometheus::Counter*, 4> discovery_syncs_{}; // applied, unchanged, rejected, error
    prometheus::Counter* discovery_refused_ = nullptr;
    prometheus::Family<prometheus::Counter>& shared_degraded_;
    prometheus::Gauge* shared_up_ = nullptr; // under mutex_, as stores_down_
    int stores_down_ = 0;
    prometheus::Histogram& fanout_;
    std::unique_ptr<budget_gauges> budgets_;
    std::mutex mutex_;                                  // guards the three tables below
    std::array<method_series, method_slots> methods_{}; // by method_label's place
    std::unordered_map<std::string, upstream_series> upstreams_;
    std::unordered_map<std::string, prometheus::Counter*> policy_series_; // "decision\nrule"
    scrape_side scrape_{*this};
    hook_side hook_{*this};
};

// MCP methods are client-chosen strings: unknown ones share one label value so a client
// cannot grow the series without bound.
std::string_view method_label(std::string_view method);

} // namespace gate::gateway
