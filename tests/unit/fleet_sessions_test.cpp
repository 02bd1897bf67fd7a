// The gateway's side of a fleet: a session published by one instance is adopted by another for
// its own principal only (counted through the gateway), and nothing is asked of a store an
// instance has not joined. Against a real Redis 7, like fleet_store_test.
#include "gateway/mcp/fleet_sessions.hpp"
#include "gateway/operations/metrics.hpp"
#include "tests/support/redis_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

namespace asio = boost::asio;
using namespace gate::gateway;
using gate::test::free_port;
using gate::test::redis_server;

namespace {

struct fake_gateway final : fleet_sessions::gateway_side {
    std::vector<std::string> admitted_ids, ended;
    bool admitted(const session_table::admission& a) override {
        if (a.id)
            admitted_ids.push_back(*a.id);
        return a.id.has_value();
    }
    void session_ended(std::string id) override { ended.push_back(std::move(id)); }
    bool stopping() const override { return true; }
    std::shared_ptr<const federation_view> current_view() const override { return nullptr; }
};

gate::policy::caller_ref who(std::string subject) {
    return std::make_shared<const gate::policy::principal>(
        gate::policy::principal{std::move(subject), "iss", {}, {}});
}

gate::transport::redis_endpoint redis_at(std::uint16_t port) {
    return std::get<gate::transport::redis_endpoint>(
        gate::transport::parse_redis_url("redis://127.0.0.1:" + std::to_string(port)));
}

const auto peer = asio::ip::make_address("127.0.0.1");

} // namespace

TEST(fleet_sessions, alone_a_session_is_known_only_here_and_only_to_its_principal) {
    session_table sessions;
    fake_gateway g;
    fleet_sessions fleet(sessions, g);
    EXPECT_FALSE(fleet.joined());
    EXPECT_EQ(fleet.tag(), "");
    auto opened = sessions.open({"2025-11-25", {}, principal_key(who("alice")), who("alice"), "h"},
                                std::chrono::steady_clock::now());
    ASSERT_TRUE(opened.id);
    EXPECT_EQ(fleet.known_session_now(*opened.id, who("alice")), std::optional<bool>(true));
    EXPECT_EQ(fleet.known_session_now(*opened.id, who("bob")), std::optional<bool>(false));
    // Unknown here, and no store to ask: unknown, decided at once.
    EXPECT_EQ(fleet.known_session_now("nope", who("alice")), std::optional<bool>(false));
}

TEST(fleet_sessions, another_instance_adopts_a_published_session_for_its_principal) {
    auto port = free_port();
    redis_server server(port);
    gate::gateway::metrics stats;
    asio::io_context io;
    session_table here, there;
    fake_gateway g_here, g_there;
    fleet_sessions a(here, g_here), b(there, g_there);
    auto store_a = std::make_shared<fleet_store>(io.get_executor(), redis_at(port), stats);
    auto store_b = std::make_shared<fleet_store>(io.get_executor(), redis_at(port), stats);
    a.join(store_a, "a-", {});
    b.join(store_b, "b-", {});
    EXPECT_EQ(b.tag(), "b-");
    bool done = false;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            co_await a.publish_session("s1", "2025-11-25", {{"sampling", boost::json::object{}}},
                                       principal_key(who("alice")));
            // Not held there: the store must be asked.
            EXPECT_EQ(b.known_session_now("s1", who("alice")), std::nullopt);
            EXPECT_FALSE(co_await b.known_session("s1", who("bob"), peer));
            EXPECT_TRUE(g_there.admitted_ids.empty());
            EXPECT_TRUE(co_await b.known_session("s1", who("alice"), peer));
            EXPECT_FALSE(co_await b.known_session("s2", who("alice"), peer));
        },
        [&](std::exception_ptr e) {
            done = true;
            store_a->close();
            store_b->close();
            if (e)
                std::rethrow_exception(e);
        });
    io.run();
    EXPECT_TRUE(done);
    // Adopted once, through the gateway's count, with what the record said.
    EXPECT_EQ(g_there.admitted_ids, (std::vector<std::string>{"s1"}));
    EXPECT_TRUE(owned_by(there, "s1", principal_key(who("alice"))));
    EXPECT_TRUE(there.capabilities("s1").contains("sampling"));
    EXPECT_EQ(b.known_session_now("s1", who("alice")), std::optional<bool>(true));
}
