// The console's timeline of an upstream's guards (actors/guards/guard_changes, and the board
// that notes each view it is given): breaker states and replicas in and out of rotation.
#include "actors/guards/guard_board.hpp"
#include "actors/guards/guard_changes.hpp"
#include "tests/support/guard_views.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

using namespace std::chrono_literals;
using state = actors::circuit_breaker::state;

actors::guard_view with(state s, std::vector<bool> rotation = {true, true}) {
    actors::guard_view v;
    v.breaker = s;
    v.in_rotation = std::move(rotation);
    return v;
}

TEST(GuardChanges, TellsBreakerAndRotationChangesOnly) {
    actors::guard_changes c;
    auto t = actors::guard_view::time_point(1h);
    auto closed = with(state::closed);
    c.note(nullptr, closed, t); // the first view changes nothing
    auto same = closed;
    same.failures = 3;
    c.note(&closed, same, t); // a failure counted is no change of state
    auto open = with(state::open);
    c.note(&same, open, t + 1s);
    auto ejected = with(state::open, {true, false});
    c.note(&open, ejected, t + 2s);
    auto half = with(state::half_open, {true, true});
    c.note(&ejected, half, t + 3s);
    auto list = c.list();
    ASSERT_EQ(list.size(), 4u);
    EXPECT_EQ(list[0].what, actors::guard_change::kind::breaker);
    EXPECT_EQ(list[0].from, 0);
    EXPECT_EQ(list[0].to, 2);
    EXPECT_EQ(list[0].at, t + 1s);
    EXPECT_EQ(list[1].what, actors::guard_change::kind::endpoint);
    EXPECT_EQ(list[1].endpoint, 1u);
    EXPECT_EQ(list[1].to, 0);
    EXPECT_EQ(list[2].to, 1); // half-open
    EXPECT_EQ(list[3].what, actors::guard_change::kind::endpoint);
    EXPECT_EQ(list[3].to, 1); // back in rotation
}

TEST(GuardChanges, KeepsTheLatestInAFixedRing) {
    actors::guard_changes c;
    auto closed = with(state::closed);
    auto open = with(state::open);
    auto t = actors::guard_view::time_point(1h);
    for (int i = 0; i < 100; ++i) {
        c.note(&closed, open, t + std::chrono::seconds(2 * i));
        c.note(&open, closed, t + std::chrono::seconds(2 * i + 1));
    }
    auto list = c.list();
    ASSERT_EQ(list.size(), actors::guard_changes::kept);
    EXPECT_EQ(list.back().at, t + 199s); // the newest last
    EXPECT_EQ(list.front().at, t + std::chrono::seconds(200 - actors::guard_changes::kept));
}

TEST(GuardChanges, TheBoardNotesWhatItsActorsPublishAndAGivingUp) {
    config::upstream cfg;
    cfg.id = "alpha";
    cfg.urls = {"http://a/mcp"};
    actors::guard_board board(cfg);
    test::publish_view(board, with(state::open, {true}));
    board.give_up();
    auto list = board.changes();
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].what, actors::guard_change::kind::breaker);
    EXPECT_EQ(list[1].what, actors::guard_change::kind::given_up);
}

} // namespace
} // namespace gate
