// Users' accounts asked from another io thread (gateway/accounts/account_relay), on two real
// threads: a fresh token is read from the keeper's vault at once; a missing one, a login offered
// or awaited and a refused token are the keeper's to decide, on the keeper's thread, and the
// answer comes back to the asking thread.
#include "gateway/accounts/account_relay.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>
#include <thread>

using namespace gate::gateway;
using namespace gate::gateway::accounts;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

struct two_threads {
    asio::io_context keeper_io, caller_io;
    asio::executor_work_guard<asio::io_context::executor_type> busy =
        asio::make_work_guard(keeper_io);
    user_accounts keeper{keeper_io.get_executor()};
    account_relay relay{keeper, keeper_io.get_executor()};
    std::thread keeper_thread{[this] { keeper_io.run(); }};
    gate::config::upstream files;
    caller_credential alice{"alice-token", "iss", "alice"}, bob{"bob-token", "iss", "bob"};

    two_threads() {
        files.id = "files";
        keeper.vault().keep("files", alice.principal(),
                            {"a1", "r1", wall_clock::now() + 1h, "files:read", {}, {}});
    }
    ~two_threads() {
        busy.reset();
        keeper_thread.join();
    }
    // `body` run as a coroutine on the asking thread (this one), to its end.
    template <class Body> void on_caller_thread(Body body) {
        auto done = asio::co_spawn(caller_io, std::move(body), asio::use_future);
        caller_io.run();
        done.get();
    }
};

} // namespace

TEST(account_relay, a_fresh_token_is_read_at_once_and_a_missing_one_is_the_keepers_to_say) {
    two_threads t;
    EXPECT_EQ(t.relay.line_now(t.files, t.alice), "Authorization: Bearer a1");
    EXPECT_EQ(t.relay.line_now(t.files, t.bob), std::nullopt);
    t.on_caller_thread([&]() -> asio::awaitable<void> {
        auto alices = co_await t.relay.line(t.files, t.alice);
        EXPECT_EQ(std::get<std::string>(alices), "Authorization: Bearer a1");
        auto bobs = co_await t.relay.line(t.files, t.bob);
        EXPECT_TRUE(std::holds_alternative<credential_failure>(bobs));
        if (!std::holds_alternative<credential_failure>(bobs))
            co_return; // ASSERT_* returns, which a coroutine cannot
        EXPECT_TRUE(std::get<credential_failure>(bobs).needs_login);
        EXPECT_NE(std::get<credential_failure>(bobs).text.find("upstream files"),
                  std::string::npos);
    });
}

TEST(account_relay, a_login_is_offered_and_awaited_by_the_keeper_and_answered_here) {
    two_threads t;
    t.on_caller_thread([&]() -> asio::awaitable<void> {
        auto home = std::this_thread::get_id();
        auto offered = co_await t.relay.offer_login(t.files, t.bob, "7", "");
        EXPECT_EQ(std::this_thread::get_id(), home) << "the answer comes back to the asker";
        EXPECT_TRUE(std::holds_alternative<std::string>(offered));
        if (!std::holds_alternative<std::string>(offered))
            co_return;
        EXPECT_EQ(std::get<std::string>(offered), "server.publicUrl is not set");
        EXPECT_FALSE(co_await t.relay.finished("no-such-login", 0ms));
    });
}

TEST(account_relay, a_refused_token_is_forgotten_by_the_keeper_on_its_thread) {
    two_threads t;
    std::thread::id told_on;
    std::string told;
    t.keeper.tell([&](const account_event& e) {
        told_on = std::this_thread::get_id();
        told = std::string(e.kind) + " " + e.upstream;
    });
    t.relay.refused(t.files, t.alice, "Authorization: Bearer a1");
    t.on_caller_thread([&]() -> asio::awaitable<void> {
        // Asked after the refusal was posted: the keeper has handled it by the answer.
        EXPECT_FALSE(co_await t.relay.finished("no-such-login", 0ms));
    });
    EXPECT_EQ(told, "refused files");
    EXPECT_EQ(told_on, t.keeper_thread.get_id());
    EXPECT_EQ(t.relay.line_now(t.files, t.alice), std::nullopt);
    EXPECT_EQ(t.keeper.vault().size(), 0u);
}

TEST(account_relay, a_token_refused_after_it_was_replaced_or_forgotten_is_not_forgotten_again) {
    two_threads t;
    std::string told;
    t.keeper.tell([&](const account_event& e) { told = std::string(e.kind); });
    // A call sent the token the user held before a refresh; the 401 arrives after it.
    t.relay.refused(t.files, t.alice, "Authorization: Bearer a0");
    // And one whose account is forgotten already (another call's 401 came first).
    t.relay.refused(t.files, t.bob, "Authorization: Bearer b0");
    t.on_caller_thread([&]() -> asio::awaitable<void> {
        EXPECT_FALSE(co_await t.relay.finished("no-such-login", 0ms));
    });
    EXPECT_EQ(told, "");
    EXPECT_EQ(t.relay.line_now(t.files, t.alice), "Authorization: Bearer a1");
    EXPECT_EQ(t.keeper.vault().size(), 1u);
}
