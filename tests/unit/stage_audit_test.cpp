// Stage 9, the single exit (gateway/pipeline/s9_audit.hpp), with fake sinks and real metrics:
// a finished request leaves one audit event and one request metric; a refusal before MCP
// handling one `http` event and one rejection metric instead; an answer a stage made settles
// the outcome; a sink that is not running gets nothing; the recording and the embedder's hook
// hear of the request once.
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/s9_audit.hpp"
#include "tests/unit/stage_rig.hpp"

#include <string>
#include <vector>

namespace gate::gateway::pipeline {
namespace {

// Keeps what it is handed.
struct fake_sinks final : audit_services {
    open_sinks open{true, true, true};
    std::vector<actors::audit_event> events;
    std::vector<std::string> spans_in;
    int heard_count = 0, finished_count = 0;
    mutable int asked = 0;

    open_sinks sinks() const override {
        ++asked;
        return open;
    }
    void audit(actors::audit_event e) override { events.push_back(std::move(e)); }
    void spans(std::vector<std::string> s) override {
        for (auto& one : s)
            spans_in.push_back(std::move(one));
    }
    void heard(request_context& ctx) override {
        ++heard_count;
        ctx.message.heard.reset();
    }
    void finished(const request_context&) override { ++finished_count; }
};

struct stage_audit : test::stage_rig {
    fake_sinks sinks;
    metrics stats;
    std::unique_ptr<exit_stage> exit = make_audit(sinks, stats);

    void SetUp() override {
        load();
        ctx.admission.start = std::chrono::steady_clock::now();
        ctx.method = "tools/call";
        ctx.message.id = 3;
    }
    ran leave() { return drive(exit->run(ctx)); }
    // The value of the first series of `metric` whose labels hold each of `labels` ("0": none).
    std::string series(const std::string& metric, std::vector<std::string> labels) const {
        auto text = stats.serialize();
        std::size_t at = 0;
        while ((at = text.find(metric + "{", at)) != std::string::npos) {
            auto end = text.find('\n', at);
            auto line = text.substr(at, end - at);
            at = end;
            bool all = true;
            for (const auto& l : labels)
                all = all && line.find(l) != std::string::npos;
            if (all)
                return line.substr(line.rfind(' ') + 1);
        }
        return "0";
    }
};

TEST_F(stage_audit, is_the_audit_stage_and_answers) {
    EXPECT_EQ(exit->id(), gateway::stage::audit);
    EXPECT_EQ(leave().verdict, verdict::answered);
}

TEST_F(stage_audit, a_finished_request_leaves_one_event_and_one_request_metric) {
    ctx.who.caller = std::make_shared<const principal>(principal{"alice", "https://idp", {}, {}});
    ctx.name = "a__echo";
    ctx.upstream = "up-a";
    ctx.policy.decision = "allow";
    ctx.policy.rule_id = "r1";
    ctx.audit.upstream_calls = 1;
    auto r = leave();
    EXPECT_TRUE(r.at_once);
    ASSERT_EQ(sinks.events.size(), 1u);
    const auto& e = sinks.events[0];
    EXPECT_EQ(e.method, "tools/call");
    EXPECT_EQ(e.name, "a__echo");
    EXPECT_EQ(e.upstream, "up-a");
    EXPECT_EQ(e.outcome, protocol::outcome::ok);
    EXPECT_EQ(e.principal, "alice");
    EXPECT_EQ(e.issuer, "https://idp");
    EXPECT_EQ(e.decision, "allow");
    EXPECT_EQ(e.rule_id, "r1");
    EXPECT_EQ(e.upstream_calls, 1);
    EXPECT_GE(e.latency_ms, 0);
    EXPECT_EQ(series("gate_requests_total", {"method=\"tools/call\"", "outcome=\"ok\""}), "1");
    EXPECT_EQ(series("gate_http_rejections_total", {}), "0");
    EXPECT_EQ(sinks.finished_count, 1);
    EXPECT_EQ(sinks.asked, 1);
}

TEST_F(stage_audit, a_refusal_before_mcp_is_an_http_event_and_one_rejection) {
    refuse(ctx, gateway_error::unauthenticated, {"a Bearer token is required"});
    leave();
    ASSERT_EQ(sinks.events.size(), 1u);
    EXPECT_EQ(sinks.events[0].method, "http");
    EXPECT_EQ(sinks.events[0].outcome, protocol::outcome::unauthenticated);
    EXPECT_EQ(sinks.events[0].error, "a Bearer token is required");
    EXPECT_EQ(series("gate_http_rejections_total", {"unauthenticated"}), "1");
    EXPECT_EQ(series("gate_requests_total", {}), "0");
    EXPECT_EQ(sinks.finished_count, 0) << "the hook hears of MCP requests only";
}

TEST_F(stage_audit, an_upstreams_error_answer_settles_the_outcome_as_an_error) {
    ctx.answer.response = boost::json::object{
        {"jsonrpc", "2.0"}, {"id", 3}, {"error", {{"code", -32000}, {"message", "boom"}}}};
    leave();
    ASSERT_EQ(sinks.events.size(), 1u);
    EXPECT_EQ(sinks.events[0].outcome, protocol::outcome::error);
    EXPECT_EQ(sinks.events[0].error, "boom");
    EXPECT_EQ(series("gate_requests_total", {"outcome=\"error\""}), "1");
}

TEST_F(stage_audit, an_answer_a_stage_made_keeps_its_outcome) {
    refuse(ctx, gateway_error::budget_exhausted, {"10", "day", "the server", "then"});
    leave();
    ASSERT_EQ(sinks.events.size(), 1u);
    EXPECT_EQ(sinks.events[0].method, "tools/call");
    EXPECT_EQ(sinks.events[0].outcome, protocol::outcome::budget_exhausted);
    // The metric counts a spent budget with the rate limits (protocol::metric_name).
    EXPECT_EQ(series("gate_requests_total", {"method=\"tools/call\"", "outcome=\"rate_limited\""}),
              "1");
}

TEST_F(stage_audit, a_tenants_request_is_counted_for_the_tenant_too) {
    ctx.who.tenant = "acme";
    ctx.audit.upstream_calls = 2;
    leave();
    ASSERT_EQ(sinks.events.size(), 1u);
    EXPECT_EQ(sinks.events[0].tenant, "acme");
    EXPECT_EQ(series("gate_tenant_requests_total", {"tenant=\"acme\""}), "1");
    EXPECT_EQ(series("gate_tenant_upstream_calls_total", {"tenant=\"acme\""}), "2");
}

TEST_F(stage_audit, sinks_that_are_not_running_get_nothing_and_the_metrics_still_count) {
    sinks.open = {false, false, false};
    ctx.tracing.spans = request_context::trace_record{
        "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "", {}, {}};
    leave();
    EXPECT_TRUE(sinks.events.empty());
    EXPECT_TRUE(sinks.spans_in.empty());
    EXPECT_EQ(sinks.finished_count, 0);
    EXPECT_EQ(series("gate_requests_total", {"outcome=\"ok\""}), "1");
}

TEST_F(stage_audit, a_traced_request_hands_its_spans_to_the_span_sink) {
    ctx.tracing.spans = request_context::trace_record{
        "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "", {}, {}};
    leave();
    ASSERT_EQ(sinks.spans_in.size(), 1u) << "the server span";
    EXPECT_NE(sinks.spans_in[0].find("0af7651916cd43dd8448eb211c80319c"), std::string::npos);
}

TEST_F(stage_audit, an_untraced_request_hands_no_spans) {
    leave();
    EXPECT_TRUE(sinks.spans_in.empty());
}

TEST_F(stage_audit, a_heard_request_goes_to_the_recording_once) {
    ctx.message.heard = std::make_shared<actors::heard_request>();
    leave();
    EXPECT_EQ(sinks.heard_count, 1);
    leave(); // what was heard went with it
    EXPECT_EQ(sinks.heard_count, 1);
}

} // namespace
} // namespace gate::gateway::pipeline
