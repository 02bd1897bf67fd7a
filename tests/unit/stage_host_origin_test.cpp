// Stage 1, Host and Origin (gateway/pipeline/s1_host_origin.hpp): the check admission runs on
// the header alone, the 403 it answers (the connection closed: the body was not read), and the
// stage itself on a request's context.
#include "gateway/pipeline/s1_host_origin.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/json/parse.hpp>
#include <utility>

namespace gate::gateway::pipeline {
namespace {

struct stage_host_origin : test::stage_rig {
    transport::host_guard guard{{"gate.example"}, false};
    std::unique_ptr<stage> host_origin = make_host_origin();
    // The stage reads the allowlist of the view its request loaded.
    void SetUp() override {
        doc->server.allowed_hosts = {"gate.example"};
        load();
    }
};

TEST_F(stage_host_origin, is_the_first_stage) {
    EXPECT_EQ(host_origin->id(), gateway::stage::host_origin);
}

TEST_F(stage_host_origin, an_allowed_host_without_an_origin_passes) {
    EXPECT_FALSE(check_host_origin(guard, "gate.example:8080", std::nullopt));
    EXPECT_FALSE(check_host_origin(guard, "gate.example", "https://gate.example"));
}

TEST_F(stage_host_origin, another_host_or_origin_is_refused_by_its_row) {
    EXPECT_EQ(check_host_origin(guard, "evil.example", std::nullopt),
              protocol::gateway_error::forbidden_host);
    EXPECT_EQ(check_host_origin(guard, "gate.example", "https://evil.example"),
              protocol::gateway_error::forbidden_origin);
}

TEST_F(stage_host_origin, the_refusal_is_403_and_closes_the_connection) {
    auto reply = forbidden_reply(protocol::gateway_error::forbidden_origin);
    EXPECT_EQ(static_cast<int>(reply.status), 403);
    EXPECT_TRUE(reply.close);
    EXPECT_EQ(boost::json::parse(reply.body).at("error"),
              "forbidden: Origin is not on the allowlist");
}

TEST_F(stage_host_origin, the_stage_lets_an_allowed_request_go_on_at_once) {
    ctx.admission.host = "gate.example";
    auto r = drive(host_origin->run(ctx));
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_FALSE(ctx.answer.refusal_reply);
}

TEST_F(stage_host_origin, the_stage_reads_the_allowlist_its_request_loaded) {
    ctx.admission.host = "gate.example";
    doc->server.allowed_hosts = {"reloaded.example"}; // a reload after this request began
    auto before = ctx.view;
    load();
    auto reloaded = std::exchange(ctx.view, before);
    EXPECT_EQ(drive(host_origin->run(ctx)).verdict, verdict::proceed);
    ctx.view = reloaded;
    EXPECT_EQ(drive(host_origin->run(ctx)).verdict, verdict::answered);
}

TEST_F(stage_host_origin, the_stage_answers_a_forbidden_host_as_an_http_rejection) {
    ctx.admission.host = "evil.example";
    auto r = drive(host_origin->run(ctx));
    EXPECT_EQ(r.verdict, verdict::answered);
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 403);
    EXPECT_TRUE(ctx.answer.refusal_reply->close);
    EXPECT_EQ(ctx.answer.rejection, "forbidden_host");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::forbidden);
}

} // namespace
} // namespace gate::gateway::pipeline
