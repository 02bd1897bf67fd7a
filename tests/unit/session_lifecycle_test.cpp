// The life of one upstream session apart from its I/O: single-flight handshakes, generations,
// a 404 forgetting only the session it answered for, and the end.
#include "gateway/upstream/session_lifecycle.hpp"

#include <gtest/gtest.h>

using gate::gateway::session_lifecycle;
using step = session_lifecycle::step;

TEST(session_lifecycle, one_caller_handshakes_and_the_others_wait_for_it) {
    session_lifecycle s;
    EXPECT_EQ(s.next(false), step::handshake);
    s.begin_handshake();
    EXPECT_EQ(s.next(false), step::wait);
    EXPECT_EQ(s.publish(), 1u);
    s.end_handshake();
    EXPECT_EQ(s.next(false), step::use);
}

TEST(session_lifecycle, a_failed_handshake_lets_the_next_caller_try) {
    session_lifecycle s;
    s.begin_handshake();
    s.end_handshake();
    EXPECT_EQ(s.next(false), step::handshake);
    EXPECT_EQ(s.generation(), 0u);
}

TEST(session_lifecycle, a_404_forgets_only_the_generation_it_answered) {
    session_lifecycle s;
    s.begin_handshake();
    auto first = s.publish();
    s.end_handshake();
    EXPECT_TRUE(s.current(first));
    EXPECT_TRUE(s.forgotten(first));
    EXPECT_FALSE(s.current(first));   // its GET stream stops
    EXPECT_FALSE(s.forgotten(first)); // the second failure on it joins the re-handshake
    s.begin_handshake();
    EXPECT_FALSE(s.forgotten(first)); // a handshake is already replacing it
    auto second = s.publish();
    s.end_handshake();
    EXPECT_FALSE(s.forgotten(first)); // a late 404 of the old session
    EXPECT_EQ(s.next(false), step::use);
    EXPECT_TRUE(s.current(second));
}

TEST(session_lifecycle, an_ended_session_stays_ended) {
    session_lifecycle s;
    EXPECT_FALSE(s.end()); // never ready: nothing to tell the upstream
    EXPECT_EQ(s.next(false), step::ended);
    session_lifecycle t;
    t.begin_handshake();
    auto g = t.publish();
    t.end_handshake();
    EXPECT_TRUE(t.end()); // it was ready: the upstream is told
    EXPECT_EQ(t.next(false), step::ended);
    EXPECT_FALSE(t.current(g));
}

TEST(session_lifecycle, a_closed_client_serves_a_ready_session_but_opens_no_new_one) {
    session_lifecycle s;
    EXPECT_EQ(s.next(true), step::ended);
    s.begin_handshake();
    auto g = s.publish();
    s.end_handshake();
    EXPECT_EQ(s.next(true), step::use); // a request finishes on the snapshot it loaded
    s.forgotten(g);
    EXPECT_EQ(s.next(true), step::ended);
}

TEST(session_lifecycle, it_is_in_use_while_any_request_uses_it) {
    session_lifecycle s;
    EXPECT_FALSE(s.in_use());
    s.enter();
    s.enter();
    s.leave();
    EXPECT_TRUE(s.in_use());
    s.leave();
    EXPECT_FALSE(s.in_use());
}
