// The audit sink under CAF's test_coordinator: its buffer is bounded, an offer over the
// bound is dropped (and reported), and written events free their place.
#include "actors/audit.hpp"
#include "coordinator_fixture.hpp"

#include <cstdio>
#include <string>

namespace gate {
namespace {

struct audit_fixture : test::coordinator_fixture {
    std::FILE* out = std::tmpfile();
    audit_channel channel =
        spawn_audit(sys, config::audit{{config::audit_sink{"stdout", {}, {}}}}, out, 2);

    audit_event event(std::string method) {
        audit_event e;
        e.time = std::chrono::system_clock::now();
        e.method = std::move(method);
        e.outcome = protocol::outcome::ok;
        return e;
    }
    std::string written() {
        std::fflush(out);
        std::rewind(out);
        std::string text;
        char buf[4096];
        while (auto n = std::fread(buf, 1, sizeof buf, out))
            text.append(buf, n);
        return text;
    }
    ~audit_fixture() override {
        caf::anon_send_exit(channel.sink(), caf::exit_reason::user_shutdown);
        sched.run();
        std::fclose(out);
    }
};

} // namespace

TEST_F(audit_fixture, an_offer_over_the_bound_is_dropped_and_written_ones_free_their_place) {
    EXPECT_TRUE(channel.offer(event("one")));
    EXPECT_TRUE(channel.offer(event("two")));
    EXPECT_FALSE(channel.offer(event("three"))); // two waiting: the sink has not run
    sched.run();
    auto text = written();
    EXPECT_NE(text.find("\"one\""), std::string::npos);
    EXPECT_NE(text.find("\"two\""), std::string::npos);
    EXPECT_EQ(text.find("\"three\""), std::string::npos);
    EXPECT_TRUE(channel.offer(event("four")));
    sched.run();
    EXPECT_NE(written().find("\"four\""), std::string::npos);
}

TEST(audit_channel, without_an_audit_section_nothing_is_spawned_and_offers_are_ignored) {
    audit_channel none;
    EXPECT_FALSE(static_cast<bool>(none));
    EXPECT_TRUE(none.offer(audit_event{}));
}

} // namespace gate
