// The chain's one door in (chain::enter) with fake stages and fake entry steps
// (fake_chain.hpp): each door's order (a message: stage 2, read, stage 3 for requests, trace,
// session within a session or envelope for a 2026-07-28 request; a stream or close: stage 2;
// the federation view: stages 2 and 3),
// and whichever link answers, waits or throws, the exit runs exactly once; a request that
// proceeds has not left, and leaves once where its handler continues it.
#include "tests/unit/fake_chain.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace gate::gateway::pipeline {

using namespace fakes;
using names = std::vector<std::string>;

namespace {

const names message_links = {"authenticate", "read", "global_limit", "trace", "session"};

// The links of `all` up to and including `last`.
names up_to(const names& all, const std::string& last) {
    names out;
    for (const auto& n : all) {
        out.push_back(n);
        if (n == last)
            break;
    }
    return out;
}

bool always(std::string_view) {
    return true;
}

} // namespace

TEST(chain_entry, a_request_runs_stage_2_read_stage_3_trace_and_session_then_goes_on) {
    journal j;
    auto c = make_named(j, "", fake_stage::act::proceed, {});
    transport::http_request req;
    request_context ctx;
    arrival a{door::message, req};
    bool ready = false;
    EXPECT_EQ(enter(c, ctx, a, &ready), verdict::proceed);
    EXPECT_TRUE(ready); // decided at once: no coroutine
    EXPECT_EQ(j.order, message_links);
    EXPECT_EQ(j.exits, 0); // not left: its handler continues it
    EXPECT_FALSE(ctx.passage.audited);
    ASSERT_EQ(ctx.passage.trace.count, 2u); // the stages it passed (the steps are not stages)
    EXPECT_EQ(ctx.passage.trace.passed[0], gateway::stage::authenticate);
    EXPECT_EQ(ctx.passage.trace.passed[1], gateway::stage::global_limit);
    // The handler's continuation, from stage 4: the exit once.
    EXPECT_EQ(run(c, ctx, gateway::stage::route), verdict::answered);
    EXPECT_EQ(j.exits, 1);
    EXPECT_EQ(j.ran, from_to(1, 7));
}

TEST(chain_entry, a_notification_or_a_clients_answer_is_not_limited) {
    for (auto kind : {protocol::message_kind::notification, protocol::message_kind::response}) {
        journal j;
        j.read_gives = {kind, {}, kind == protocol::message_kind::response ? "" : "notify", 1};
        auto c = make_named(j, "", fake_stage::act::proceed, {});
        transport::http_request req;
        request_context ctx;
        arrival a{door::message, req};
        EXPECT_EQ(enter(c, ctx, a), verdict::proceed);
        EXPECT_EQ(j.order, (names{"authenticate", "read", "trace", "session"}));
        EXPECT_EQ(j.exits, 0);
    }
}

TEST(chain_entry, initialize_has_no_session_to_check) {
    journal j;
    j.read_gives.method = "initialize";
    auto c = make_named(j, "", fake_stage::act::proceed, {});
    transport::http_request req;
    request_context ctx;
    arrival a{door::message, req};
    EXPECT_EQ(enter(c, ctx, a), verdict::proceed);
    EXPECT_EQ(j.order, (names{"authenticate", "read", "global_limit", "trace"}));
    EXPECT_EQ(j.exits, 0);
}

TEST(chain_entry, a_2026_07_28_request_has_its_envelope_checked_instead_of_a_session) {
    for (bool answers : {false, true}) {
        journal j;
        j.read_modern = true;
        auto c = make_named(j, "envelope",
                            answers ? fake_stage::act::answer : fake_stage::act::proceed, {});
        transport::http_request req;
        request_context ctx;
        arrival a{door::message, req};
        EXPECT_EQ(enter(c, ctx, a), answers ? verdict::answered : verdict::proceed);
        EXPECT_EQ(j.order, (names{"authenticate", "read", "global_limit", "trace", "envelope"}));
        EXPECT_EQ(j.exits, answers ? 1 : 0);
    }
}

TEST(chain_entry, a_2026_07_28_notification_has_neither_session_nor_envelope) {
    journal j;
    j.read_modern = true;
    j.read_gives = {protocol::message_kind::notification, {}, "notifications/cancelled", nullptr};
    auto c = make_named(j, "", fake_stage::act::proceed, {});
    transport::http_request req;
    request_context ctx;
    arrival a{door::message, req};
    EXPECT_EQ(enter(c, ctx, a), verdict::proceed);
    EXPECT_EQ(j.order, (names{"authenticate", "read", "trace"}));
    EXPECT_EQ(j.exits, 0);
}

TEST(chain_entry, whichever_link_answers_the_rest_do_not_run_and_the_exit_runs_once) {
    for (bool waits : {false, true})
        for (const auto& link : message_links) {
            SCOPED_TRACE(link + (waits ? " (waiting)" : ""));
            journal j;
            auto c = make_named(j, link, fake_stage::act::answer,
                                waits ? always : std::function<bool(std::string_view)>());
            transport::http_request req;
            request_context ctx;
            arrival a{door::message, req};
            bool ready = true;
            EXPECT_EQ(enter(c, ctx, a, &ready), verdict::answered);
            EXPECT_EQ(ready, !waits);
            EXPECT_EQ(j.order, up_to(message_links, link));
            EXPECT_EQ(j.exits, 1);
            EXPECT_EQ(j.exit_outcome, protocol::outcome::denied);
            c.conclude(ctx); // a handler that concluded again: still once
            EXPECT_EQ(j.exits, 1);
        }
}

TEST(chain_entry, a_link_that_throws_answers_an_internal_error_and_exits_once) {
    for (bool waits : {false, true})
        for (const auto& link : message_links) {
            SCOPED_TRACE(link + (waits ? " (waiting)" : ""));
            journal j;
            auto c = make_named(j, link, fake_stage::act::fail,
                                waits ? always : std::function<bool(std::string_view)>());
            transport::http_request req;
            request_context ctx;
            ctx.message.id = 5;
            arrival a{door::message, req};
            EXPECT_EQ(enter(c, ctx, a), verdict::answered);
            EXPECT_EQ(j.order, up_to(message_links, link));
            EXPECT_EQ(j.exits, 1);
            EXPECT_EQ(j.exit_outcome, protocol::outcome::error);
            EXPECT_EQ(ctx.audit.error.value_or(""), "stage failed");
            ASSERT_TRUE(ctx.answer.response);
            EXPECT_EQ(ctx.answer.response->at("error").at("code"), -32603);
            EXPECT_EQ(ctx.answer.response->at("id"), 5);
        }
}

TEST(chain_entry, links_that_wait_run_in_the_same_order) {
    journal j;
    auto c = make_named(j, "", fake_stage::act::proceed,
                        [](std::string_view n) { return n == "read" || n == "session"; });
    transport::http_request req;
    request_context ctx;
    arrival a{door::message, req};
    bool ready = true;
    EXPECT_EQ(enter(c, ctx, a, &ready), verdict::proceed);
    EXPECT_FALSE(ready);
    EXPECT_EQ(j.order, message_links);
    EXPECT_EQ(j.exits, 0);
}

TEST(chain_entry, a_sessions_stream_or_end_runs_stage_2_and_passes) {
    for (auto d : {door::stream, door::close}) {
        journal j;
        auto c = make_named(j, "", fake_stage::act::proceed, {});
        transport::http_request req;
        request_context ctx;
        arrival a{d, req};
        EXPECT_EQ(enter(c, ctx, a), verdict::proceed);
        EXPECT_EQ(j.order, (names{"authenticate"}));
        EXPECT_TRUE(ctx.passage.audited); // the session's transport: no audit event (chain::pass)
        c.conclude(ctx);
        EXPECT_EQ(j.exits, 0);
    }
}

TEST(chain_entry, the_federation_view_runs_stages_2_and_3_and_passes) {
    journal j;
    auto c = make_named(j, "", fake_stage::act::proceed, {});
    transport::http_request req;
    request_context ctx;
    arrival a{door::view, req};
    EXPECT_EQ(enter(c, ctx, a), verdict::proceed);
    EXPECT_EQ(j.order, (names{"authenticate", "global_limit"}));
    EXPECT_TRUE(ctx.passage.audited);
    EXPECT_EQ(j.exits, 0);
}

TEST(chain_entry, a_refusal_at_any_door_leaves_by_the_exit_once) {
    for (auto d : {door::stream, door::close, door::view})
        for (const std::string link : {"authenticate", "global_limit"}) {
            if (link == "global_limit" && d != door::view)
                continue;
            journal j;
            auto c = make_named(j, link, fake_stage::act::answer, {});
            transport::http_request req;
            request_context ctx;
            arrival a{d, req};
            EXPECT_EQ(enter(c, ctx, a), verdict::answered);
            EXPECT_EQ(j.order.back(), link);
            EXPECT_EQ(j.exits, 1);
            EXPECT_EQ(j.exit_outcome, protocol::outcome::denied);
        }
}

} // namespace gate::gateway::pipeline
