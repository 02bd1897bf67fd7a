// The chain with fake stages (fake_chain.hpp): the spec's order, a stage that answers early, a
// stage that throws, an answer made outside the stages: whatever happens, the exit runs exactly
// once. The entry's order is in chain_entry_test.cpp.
#include "tests/unit/fake_chain.hpp"

#include <gtest/gtest.h>

namespace gate::gateway::pipeline {

using namespace fakes;

// A stage that threw: the client is answered -32603 under its id, the audit keeps why.
void expect_internal_error(const request_context& ctx, int id) {
    EXPECT_EQ(ctx.audit.error, "stage failed");
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -32603);
    EXPECT_EQ(ctx.answer.response->at("id"), id);
}

TEST(chain, runs_the_stages_in_the_spec_order_then_exits_once) {
    journal j;
    auto c = make(j);
    request_context ctx;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 7)); // stage 1 ran at admission
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(ctx.passage.trace.count, 8u);
    EXPECT_EQ(ctx.passage.trace.passed[7], gateway::stage::audit);
}

TEST(chain, a_stage_that_answers_early_skips_the_rest_and_still_exits_once) {
    journal j;
    auto c = make(j, gateway::stage::route, fake_stage::act::answer);
    request_context ctx;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 3));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(j.exit_outcome, protocol::outcome::denied);
    c.conclude(ctx); // an answer path that concludes again: still once
    EXPECT_EQ(j.exits, 1);
}

TEST(chain, a_stage_that_throws_answers_an_internal_error_and_exits_once) {
    journal j;
    auto c = make(j, gateway::stage::proxy, fake_stage::act::fail);
    request_context ctx;
    ctx.message.id = 7;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 6));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(j.exit_outcome, protocol::outcome::error);
    expect_internal_error(ctx, 7);
}

TEST(chain, stages_that_decide_at_once_need_no_coroutine) {
    journal j;
    auto c = make(j);
    request_context ctx;
    bool ready = false;
    EXPECT_EQ(run(c, ctx, gateway::stage::authenticate, gateway::stage::egress, &ready),
              verdict::answered);
    EXPECT_TRUE(ready);
    EXPECT_EQ(j.exits, 1);
}

TEST(chain, stages_that_wait_run_in_the_same_order_and_exit_once) {
    journal j;
    auto c = make(j, gateway::stage::audit, fake_stage::act::proceed, every_other);
    request_context ctx;
    bool ready = true;
    EXPECT_EQ(run(c, ctx, gateway::stage::authenticate, gateway::stage::egress, &ready),
              verdict::answered);
    EXPECT_FALSE(ready);
    EXPECT_EQ(j.ran, from_to(1, 7));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(ctx.passage.trace.count, 8u);
}

TEST(chain, a_waiting_stage_that_answers_skips_the_rest_and_exits_once) {
    journal j;
    auto c = make(j, gateway::stage::upstream_guards, fake_stage::act::answer,
                  [](gateway::stage id) { return id == gateway::stage::upstream_guards; });
    request_context ctx;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 5));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(j.exit_outcome, protocol::outcome::denied);
}

TEST(chain, a_waiting_stage_that_throws_answers_an_internal_error_and_exits_once) {
    journal j;
    auto c = make(j, gateway::stage::proxy, fake_stage::act::fail, every_other);
    request_context ctx;
    ctx.message.id = 9;
    EXPECT_EQ(run(c, ctx), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 6));
    EXPECT_EQ(j.exits, 1);
    expect_internal_error(ctx, 9);
}

// The call path's form: the caller awaits each waiting stage itself and resumes the chain.
TEST(chain, a_paused_run_goes_on_in_the_same_order_and_exits_once) {
    journal j;
    auto c = make(j, gateway::stage::audit, fake_stage::act::proceed, every_other);
    request_context ctx;
    int pauses = 0;
    EXPECT_EQ(run_pausing(c, ctx, pauses), verdict::answered);
    EXPECT_EQ(pauses, 2) << "authorize and proxy wait; the others decide at once";
    EXPECT_EQ(j.ran, from_to(3, 7));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(ctx.passage.trace.count, 6u);
    EXPECT_EQ(ctx.passage.trace.passed[5], gateway::stage::audit);
}

TEST(chain, a_paused_run_whose_stages_decide_at_once_never_pauses) {
    journal j;
    auto c = make(j);
    request_context ctx;
    int pauses = -1;
    EXPECT_EQ(run_pausing(c, ctx, pauses), verdict::answered);
    EXPECT_EQ(pauses, 0);
    EXPECT_EQ(j.ran, from_to(3, 7));
    EXPECT_EQ(j.exits, 1);
}

TEST(chain, a_paused_stage_that_answers_skips_the_rest_and_exits_once) {
    journal j;
    auto c = make(j, gateway::stage::upstream_guards, fake_stage::act::answer,
                  [](gateway::stage id) { return id == gateway::stage::upstream_guards; });
    request_context ctx;
    int pauses = 0;
    EXPECT_EQ(run_pausing(c, ctx, pauses), verdict::answered);
    EXPECT_EQ(pauses, 1);
    EXPECT_EQ(j.ran, from_to(3, 5));
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(j.exit_outcome, protocol::outcome::denied);
}

TEST(chain, a_paused_stage_that_throws_answers_an_internal_error_and_exits_once) {
    journal j;
    auto c = make(j, gateway::stage::proxy, fake_stage::act::fail, every_other);
    request_context ctx;
    ctx.message.id = 9;
    int pauses = 0;
    EXPECT_EQ(run_pausing(c, ctx, pauses), verdict::answered);
    EXPECT_EQ(pauses, 2);
    EXPECT_EQ(j.ran, from_to(3, 6));
    EXPECT_EQ(j.exits, 1);
    expect_internal_error(ctx, 9);
}

TEST(chain, a_resume_without_a_pause_is_refused_before_any_stage_runs) {
    journal j;
    auto c = make(j, gateway::stage::audit, fake_stage::act::proceed, every_other);
    request_context ctx;
    EXPECT_THROW(c.resume(ctx, verdict::proceed, {}), std::logic_error);
    int pauses = 0;
    EXPECT_EQ(run_pausing(c, ctx, pauses), verdict::answered);
    EXPECT_THROW(c.resume(ctx, verdict::proceed, {}), std::logic_error) << "resumed once only";
    EXPECT_EQ(j.ran, from_to(3, 7));
    EXPECT_EQ(j.exits, 1);
}

TEST(chain, a_run_that_stops_before_egress_does_not_exit_and_the_rest_exits_once) {
    journal j;
    auto c = make(j);
    request_context ctx;
    EXPECT_EQ(run(c, ctx, gateway::stage::authenticate, gateway::stage::global_limit),
              verdict::proceed);
    EXPECT_EQ(j.exits, 0); // the request goes on
    EXPECT_EQ(run(c, ctx, gateway::stage::route), verdict::answered);
    EXPECT_EQ(j.ran, from_to(1, 7));
    EXPECT_EQ(j.exits, 1);
}

TEST(chain, an_answer_made_outside_the_stages_leaves_by_the_exit_once) {
    journal j;
    auto c = make(j);
    request_context ctx;
    c.conclude(ctx);
    c.conclude(ctx);
    EXPECT_EQ(j.exits, 1);
    EXPECT_TRUE(j.ran.empty());
}

TEST(chain, refuses_stages_out_of_the_spec_order) {
    journal j;
    std::array<std::unique_ptr<stage>, 8> stages;
    for (std::size_t i = 0; i < 8; ++i)
        stages[i] = std::make_unique<fake_stage>(pipeline_order[i], j);
    std::swap(stages[1], stages[2]); // the global limit before authentication
    EXPECT_THROW(chain(std::move(stages), std::make_unique<fake_exit>(j), proceeding_entry(j)),
                 std::logic_error);
}

TEST(chain, refuses_an_entry_without_its_steps) {
    journal j;
    for (int missing = 0; missing < 4; ++missing) {
        std::array<std::unique_ptr<stage>, 8> stages;
        for (std::size_t i = 0; i < 8; ++i)
            stages[i] = std::make_unique<fake_stage>(pipeline_order[i], j);
        auto entry = proceeding_entry(j);
        std::array<std::unique_ptr<entry_step>*, 4> steps{&entry.read, &entry.trace, &entry.session,
                                                          &entry.envelope};
        steps[static_cast<std::size_t>(missing)]->reset();
        EXPECT_THROW(chain(std::move(stages), std::make_unique<fake_exit>(j), std::move(entry)),
                     std::logic_error);
    }
}

} // namespace gate::gateway::pipeline
