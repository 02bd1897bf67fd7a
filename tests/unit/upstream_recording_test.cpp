// upstream_recording, gate --record's tap at one upstream: nothing is copied
// without a tap; with one, each request's params as they were before it went
// (the request takes them), its method, the upstream, the request it served,
// and the upstream's answer as written or the failure's kind, status and text
// reach the recorder.
#include "actors/message_types.hpp"
#include "actors/sinks/recorder.hpp"
#include "gateway/operations/traffic_tap.hpp"
#include "gateway/upstream/upstream_recording.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <caf/all.hpp>
#include <condition_variable>
#include <gtest/gtest.h>
#include <mutex>

namespace gate::test {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using gateway::upstream_failure;
using gateway::upstream_message;
using gateway::upstream_recording;

// What the fake recorder received, for the test thread.
struct received {
    std::mutex m;
    std::condition_variable cv;
    std::vector<actors::heard_event> events;
};

actors::recorder_actor::behavior_type fake_recorder(std::shared_ptr<received> box) {
    return {[box](actors::record_batch& b) {
                std::lock_guard lock(box->m);
                for (auto& e : b.events)
                    box->events.push_back(std::move(e));
                box->cv.notify_all();
            },
            [](actors::batch_flush&) {}};
}

struct recording_test : ::testing::Test {
    // The io_context outlives the actor system: an actor's last copy of a reply may still
    // hold io objects when the system shuts down.
    asio::io_context io;
    caf::actor_system_config cfg;
    std::optional<caf::actor_system> sys;
    std::shared_ptr<received> box = std::make_shared<received>();
    std::shared_ptr<gateway::traffic_tap> tap;
    actors::recorder_actor recorder;
    std::string upstream_id = "alpha";
    upstream_recording recording{upstream_id};

    void SetUp() override {
        cfg.set("logger.verbosity", caf::atom("quiet"));
        actors::add_message_types(cfg);
        sys.emplace(cfg);
        recorder = sys->spawn(fake_recorder, box);
        tap = std::make_shared<gateway::traffic_tap>(io, recorder,
                                                     std::make_shared<std::atomic<std::int64_t>>(0),
                                                     std::make_shared<actors::delivery_tally>());
        recording.through(tap);
    }
    void TearDown() override { caf::anon_send_exit(recorder, caf::exit_reason::user_shutdown); }
    // The answers the recorder has, once `n` arrived (at most 5 s).
    std::vector<actors::heard_answer> answers(std::size_t n) {
        io.restart();
        io.poll(); // the tap feeds the recorder once per turn of the loop
        std::unique_lock lock(box->m);
        box->cv.wait_for(lock, std::chrono::seconds(5), [&] { return box->events.size() >= n; });
        std::vector<actors::heard_answer> out;
        for (auto& e : box->events)
            out.push_back(std::get<actors::heard_answer>(e));
        return out;
    }
};

TEST(upstream_recording_off, nothing_is_copied_without_a_tap) {
    std::string id = "alpha";
    upstream_recording recording(id);
    EXPECT_FALSE(recording.before(json::object{{"name", "echo"}}));
}

TEST_F(recording_test, a_request_and_its_answer_are_heard_as_they_went) {
    json::object params{{"name", "echo"}, {"arguments", {{"n", 1}}}};
    auto sent = recording.before(params);
    ASSERT_TRUE(sent);
    params["name"] = "changed after"; // the request owns its params once sent
    gateway::call_context ctx;
    ctx.recorded = 42;
    recording.heard(ctx, std::move(*sent), "tools/call",
                    upstream_message::of_text(R"({"jsonrpc":"2.0","id":7,"result":{"n":1.50}})"));
    auto got = answers(1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].request, 42u);
    EXPECT_EQ(got[0].upstream, "alpha");
    EXPECT_EQ(got[0].method, "tools/call");
    EXPECT_EQ(got[0].params.at("name"), "echo");
    EXPECT_EQ(got[0].reply, R"({"jsonrpc":"2.0","id":7,"result":{"n":1.50}})");
    EXPECT_FALSE(got[0].failure_kind);
}

TEST_F(recording_test, a_failure_is_heard_by_its_kind_status_and_text) {
    upstream_failure f;
    f.what = upstream_failure::kind::http_status;
    f.status = 502;
    f.message = "upstream answered HTTP 502";
    recording.heard({}, *recording.before({}), "tools/list", f);
    // Refused by gate's own guards: it never reached the upstream, so the upstream answered
    // nothing a replay could play back.
    for (auto kind : {upstream_failure::kind::circuit_open, upstream_failure::kind::rate_limited}) {
        upstream_failure refused;
        refused.what = kind;
        refused.message = "refused by the guards";
        recording.heard({}, *recording.before({}), "tools/list", refused);
    }
    upstream_failure slow;
    slow.what = upstream_failure::kind::timeout;
    slow.message = "no answer within 30000 ms";
    recording.heard({}, *recording.before({}), "tools/list", slow);
    // In order: had a refusal been heard, it would stand before the timeout.
    auto got = answers(2);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].failure_kind, "http_status");
    EXPECT_EQ(got[0].status, 502);
    EXPECT_EQ(got[0].failure_message, "upstream answered HTTP 502");
    EXPECT_TRUE(got[0].reply.empty());
    EXPECT_EQ(got[1].failure_kind, "timeout");
    EXPECT_EQ(got[1].failure_message, "no answer within 30000 ms");
}

} // namespace
} // namespace gate::test
