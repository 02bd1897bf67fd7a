// actors::ask (actors/bridge.hpp) with a real actor system: the answer resumes the asker, and
// a host's shutdown (io_thread_context::abandon_pending) destroys a frame still waiting on an
// actor then, while what the frame points into lives, not when the actor answers or ends
// later into the stopped context.
#include "actors/bridge.hpp"
#include "actors/guards/breaker_actor.hpp"
#include "actors/message_types.hpp"
#include "gateway/program/io_thread_context.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <future>
#include <gtest/gtest.h>
#include <memory>
#include <optional>

namespace actors = gate::actors;
namespace asio = boost::asio;
using gate::gateway::program::io_thread_context;

namespace {

// What a waiting frame points into (a gateway): its destructor writes here.
struct owner {
    int frames_ended = 0;
    std::optional<bool> answer;
};

asio::awaitable<void> ask_and_keep(caf::actor actor, owner& o) {
    struct on_end {
        owner& o;
        ~on_end() { ++o.frames_ended; }
    } ending{o};
    o.answer = co_await actors::ask<bool>(actor, [](actors::reply_to<bool> r) {
        return actors::breaker_outcome{nullptr, true, false, {}, std::move(r)};
    });
}

struct ask_with_actor : ::testing::Test {
    io_thread_context io{1}; // outlives the actor system, as in the host
    caf::actor_system_config cfg;
    std::optional<caf::actor_system> sys;
    // The actor hands each question's reply to the test thread, which answers (or drops it)
    // when it chooses.
    std::promise<actors::reply_to<bool>> held;
    caf::actor actor;

    void SetUp() override {
        cfg.set("logger.verbosity", caf::atom("quiet"));
        actors::add_message_types(cfg);
        sys.emplace(cfg);
        // The rig goes as an argument: CAF 0.17 binds a null tuple for a function actor spawned
        // with none (UBSan says so).
        actor = sys->spawn(
            [](caf::event_based_actor*, ask_with_actor* rig) -> caf::behavior {
                return {[rig](actors::breaker_outcome& m) {
                    rig->held.set_value(std::move(m.counted));
                }};
            },
            this);
    }
    void TearDown() override {
        caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
        actor = nullptr;
        sys.reset();
    }
};

} // namespace

TEST_F(ask_with_actor, the_answer_resumes_the_asker) {
    owner o;
    asio::co_spawn(io, ask_and_keep(actor, o), asio::detached);
    io.poll(); // asks, and waits
    auto reply = held.get_future().get();
    reply(true);
    io.run_one(); // the answer, posted to the io thread
    EXPECT_EQ(o.answer, std::optional<bool>(true));
    EXPECT_EQ(o.frames_ended, 1);
}

TEST_F(ask_with_actor, abandoning_destroys_a_frame_waiting_on_an_actor_then) {
    auto o = std::make_unique<owner>();
    asio::co_spawn(io, ask_and_keep(actor, *o), asio::detached);
    io.poll();
    auto reply = held.get_future().get(); // the actor holds the question
    ASSERT_EQ(o->frames_ended, 0);

    io.abandon_pending();
    EXPECT_EQ(o->frames_ended, 1); // here, while its owner lives
    o.reset();                     // the host frees the gateways next
    // A late answer, then the question's last copy going with the actor, post into the
    // stopped context: nothing there may reach the freed owner (ASan would say).
    reply(true);
    reply = {};
}

TEST_F(ask_with_actor, an_actor_dropping_the_question_answers_nothing) {
    owner o;
    asio::co_spawn(io, ask_and_keep(actor, o), asio::detached);
    io.poll();
    held.get_future().get(); // and dropped: the reply's last copy answers nullopt
    io.run_one();
    EXPECT_EQ(o.answer, std::nullopt);
    EXPECT_EQ(o.frames_ended, 1);
}
