// The router actor under CAF's test_coordinator: virtual time, no threads, no sleeps.
#include "../unit/test_config.hpp"
#include "actors/federation/router.hpp"
#include "coordinator_fixture.hpp"
#include "protocol/json_rpc.hpp"

#include <boost/json/parse.hpp>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <gtest/gtest.h>

using namespace gate;
using protocol::list_kind;
namespace json = boost::json;
constexpr auto full = protocol::full_profile;

namespace {

struct router_fixture : test::coordinator_fixture {

    std::shared_ptr<const gate::actors::snapshot> snap = test::two_upstreams(200, 30000);
    gate::actors::router_actor router = spawn_router(sys, snap);

    template <class T, class Msg> std::optional<T> ask(Msg make) {
        std::optional<T> got;
        bool fired = false;
        caf::anon_send(router, make(actors::reply_to<T>([&](std::optional<T> v) {
                           fired = true;
                           got = std::move(v);
                       })));
        sched.run();
        EXPECT_TRUE(fired);
        return got;
    }
    std::vector<std::size_t> plan(list_kind k) {
        return ask<gate::actors::list_plan>([&](auto r) {
                   return actors::plan_list{snap, k, full, std::move(r)};
               })
            ->fetch;
    }
    std::variant<gate::actors::list_answer, gate::actors::route_error>
    complete(list_kind k, std::vector<gate::actors::fetched_list> f) {
        using answer = std::variant<gate::actors::list_answer, gate::actors::route_error>;
        return *ask<answer>([&](auto r) {
            return actors::complete_list{snap,         k, full,        std::move(f),
                                         std::nullopt, 1, std::move(r)};
        });
    }
    std::variant<actors::route, gate::actors::route_error> resolve_tool() {
        return ask<actors::routed>([&](auto reply) {
                   return actors::resolve_call{snap, "tools/call",
                                               json::parse(R"({"name":"a__echo"})").as_object(),
                                               std::move(reply)};
               })
            ->outcome;
    }
    ~router_fixture() override {
        caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
        sched.run();
    }
};

json::array names(std::initializer_list<const char*> ns) {
    json::array a;
    for (auto n : ns)
        a.push_back(json::object{{"name", n}});
    return a;
}

} // namespace

TEST_F(router_fixture, routes_a_named_call_to_one_upstream) {
    auto r = ask<actors::routed>([this](auto reply) {
        return actors::resolve_call{
            snap, "tools/call", json::parse(R"({"name":"a__echo"})").as_object(), std::move(reply)};
    });
    ASSERT_TRUE(r);
    EXPECT_EQ(std::get<actors::route>(r->outcome).upstream, 0u);
    EXPECT_EQ(std::get<actors::route>(r->outcome).params.at("name"), "echo");
}

TEST_F(router_fixture, a_slow_upstream_is_left_out_of_the_merged_list) {
    EXPECT_EQ(plan(list_kind::tools).size(), 2u);
    // Upstream b timed out: the transport reports no items for it.
    auto answer = complete(list_kind::tools, {{0, names({"echo", "add"})}, {1, std::nullopt}});
    auto& ok = std::get<gate::actors::list_answer>(answer);
    ASSERT_EQ(ok.items_served, 2u);
    EXPECT_EQ(ok.result().at("tools").as_array()[0].at("name"), "a__echo");
    // Only the failed upstream is asked again; a's list is cached.
    EXPECT_EQ(plan(list_kind::tools), std::vector<std::size_t>{1});
}

TEST_F(router_fixture, cache_expires_after_the_ttl_in_virtual_time) {
    complete(list_kind::prompts, {{0, names({"p"})}, {1, names({"q"})}});
    EXPECT_TRUE(plan(list_kind::prompts).empty());
    sched.advance_time(std::chrono::milliseconds(29999));
    EXPECT_TRUE(plan(list_kind::prompts).empty());
    sched.advance_time(std::chrono::milliseconds(1));
    EXPECT_EQ(plan(list_kind::prompts).size(), 2u);
}

TEST_F(router_fixture, list_changed_invalidates_one_upstream) {
    complete(list_kind::tools, {{0, names({"x"})}, {1, names({"y"})}});
    caf::anon_send(router, actors::invalidate_upstream{"up-b"});
    sched.run();
    EXPECT_EQ(plan(list_kind::tools), std::vector<std::size_t>{1});
}

TEST_F(router_fixture, a_dropped_reply_channel_answers_nullopt) {
    std::optional<std::optional<int>> got;
    {
        actors::reply_to<int> r([&](std::optional<int> v) { got = v; });
    }
    ASSERT_TRUE(got);
    EXPECT_FALSE(*got);
}

TEST_F(router_fixture, a_request_finishes_on_the_snapshot_it_loaded) {
    auto old = snap;
    EXPECT_EQ(plan(list_kind::tools).size(), 2u); // planned on the old snapshot
    auto next = test::two_upstreams(200, 30000);
    caf::anon_send(router, actors::replace_snapshot{next});
    sched.run();
    // Completed after the reload, on the snapshot it loaded: answered, and cached there only.
    auto page = complete(list_kind::tools, {{0, names({"x"})}, {1, names({"y"})}});
    ASSERT_TRUE(std::holds_alternative<gate::actors::list_answer>(page));
    EXPECT_EQ(std::get<gate::actors::list_answer>(page).items_served, 2u);
    EXPECT_TRUE(plan(list_kind::tools).empty()); // the old snapshot's cache holds it
    snap = next;
    EXPECT_EQ(plan(list_kind::tools).size(), 2u); // the new one starts empty
    // Named routing on the old snapshot still works after the reload.
    snap = old;
    EXPECT_TRUE(std::holds_alternative<actors::route>(resolve_tool()));
}

TEST_F(router_fixture, only_the_last_three_snapshots_keep_their_state) {
    auto first = snap;
    complete(list_kind::tools, {{0, names({"x"})}, {1, names({"y"})}});
    for (int i = 0; i < 3; ++i) {
        caf::anon_send(router, actors::replace_snapshot{test::two_upstreams(200, 30000)});
        sched.run();
    }
    // The first snapshot's federation is gone: its requests are served without a cache.
    EXPECT_EQ(plan(list_kind::tools).size(), 2u);
    auto page = complete(list_kind::tools, {{0, names({"x"})}, {1, names({"y"})}});
    EXPECT_TRUE(std::holds_alternative<gate::actors::list_answer>(page));
    EXPECT_EQ(plan(list_kind::tools).size(), 2u); // and nothing stays cached for it
    EXPECT_EQ(snap, first);
}
