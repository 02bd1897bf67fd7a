// The federation a request sees (gateway/upstream/live_federation.hpp) on an io thread beyond
// the first: the client of an entry is made at its first use, through the view's maker; what
// only reads the entry (configuration, guard board, tool facts, identity) makes none; a
// reload's view keeps the client of an unchanged entry, made or not, and a changed entry's
// starts unmade. Without a maker (the first thread) every client is made with the view, of the
// same siblings. The maker of a thread beyond the first (first_use_clients): a request holding
// a view a reload replaced gets the current view's client of the same entry; one whose entry
// is gone gets a client retired at once; after stop, one made is closed.
#include "actors/federation/snapshot.hpp"
#include "gateway/program/first_use_clients.hpp"
#include "gateway/program/gateway_components.hpp"
#include "stage_rig.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <optional>
#include <vector>

namespace {

using gate::gateway::federation_view;
using gate::gateway::live_federation;
using gate::gateway::shared_upstreams;
using gate::gateway::upstream_client;
using gate::gateway::program::client_maker;
using gate::gateway::program::first_use_clients;
using gate::gateway::program::make_view;
namespace config = gate::config;

using gate::test::stage_rig;

struct lazy_view : ::testing::Test {
    boost::asio::io_context io;
    shared_upstreams shared;
    int made = 0;
    client_maker maker = [this](const federation_view& v, std::size_t i) {
        ++made;
        return upstream_client::make(io.get_executor(), v.config(i), v.entry(i));
    };
    std::vector<std::shared_ptr<const federation_view>> views;
    void TearDown() override {
        for (const auto& v : views)
            v->for_each_made([](upstream_client& c) { c.close(); });
    }
    std::shared_ptr<const federation_view> view_of(std::shared_ptr<config::document> doc,
                                                   const federation_view* previous,
                                                   client_maker m) {
        auto snap = gate::actors::make_snapshot(doc, views.size() + 1);
        views.push_back(make_view(io, std::move(snap), previous, &shared, std::move(m)));
        return views.back();
    }
};

} // namespace

TEST_F(lazy_view, reading_an_entry_makes_no_client_and_the_first_use_makes_one) {
    auto view = view_of(stage_rig::two_upstreams(), nullptr, maker);
    ASSERT_EQ(view->size(), 2u);
    EXPECT_EQ(view->config(1).id, "up-b");
    EXPECT_FALSE(view->facts(0)->tools.listed());
    EXPECT_TRUE(view->board(0));
    EXPECT_TRUE(view->identity(0)->empty());
    EXPECT_FALSE(view->per_caller(0));
    EXPECT_EQ(view->index_of("up-b"), std::optional<std::size_t>(1));
    EXPECT_EQ(view->boards().size(), 2u);
    EXPECT_EQ(view->made(0), nullptr);
    EXPECT_EQ(view->made("up-b"), nullptr);
    int visited = 0;
    view->for_each_made([&](upstream_client&) { ++visited; });
    EXPECT_EQ(visited, 0);
    EXPECT_EQ(made, 0) << "nothing above makes a client";

    const auto& b = view->client_at(1);
    ASSERT_TRUE(b);
    EXPECT_EQ(made, 1);
    EXPECT_EQ(view->client_at(1), b) << "made once";
    EXPECT_EQ(made, 1);
    EXPECT_EQ(view->made("up-b"), b.get());
    EXPECT_EQ(view->made(0), nullptr);
    EXPECT_EQ(b->siblings(), view->entry(1));
    EXPECT_EQ(b->guards().board(), view->board(1)) << "the entry's board, the process's";
    view->for_each_made([&](upstream_client& c) { EXPECT_EQ(&c, b.get()); });
}

TEST_F(lazy_view, a_reload_keeps_an_unchanged_entrys_client_and_a_changed_one_starts_unmade) {
    auto doc = stage_rig::two_upstreams();
    auto view = view_of(doc, nullptr, maker);
    auto a = view->client_at(0);
    auto b = view->client_at(1);
    auto changed = std::make_shared<config::document>(*doc);
    changed->upstreams[0].timeouts.request_ms = 9000;
    auto next = view_of(changed, view.get(), maker);
    EXPECT_EQ(next->made(1), b.get()) << "unchanged: its client and its sessions go on";
    EXPECT_EQ(next->entry(1), view->entry(1));
    EXPECT_EQ(next->made(0), nullptr) << "changed: made at its first use under the new entry";
    EXPECT_NE(next->entry(0), view->entry(0));
    EXPECT_EQ(next->config(0).timeouts.request_ms, 9000);
    EXPECT_EQ(made, 2);
}

TEST_F(lazy_view, without_a_maker_every_client_is_made_with_the_view_of_the_same_siblings) {
    auto doc = stage_rig::two_upstreams();
    auto lazy = view_of(doc, nullptr, maker);
    auto eager = view_of(doc, nullptr, {});
    ASSERT_NE(eager->made(0), nullptr);
    ASSERT_NE(eager->made(1), nullptr);
    EXPECT_EQ(made, 0);
    EXPECT_EQ(eager->entry(1), lazy->entry(1)) << "one entry, whichever thread";
    EXPECT_EQ(lazy->client_at(1)->guards().board(), eager->made(1)->guards().board());
}

TEST_F(lazy_view, a_request_on_a_replaced_view_gets_the_current_client_or_one_that_serves_none) {
    auto doc = stage_rig::two_upstreams();
    std::vector<std::shared_ptr<upstream_client>> wired;
    std::optional<first_use_clients> first_use;
    client_maker through = [&](const federation_view& v, std::size_t i) {
        return first_use->make(v, i);
    };
    live_federation live(view_of(doc, nullptr, through));
    first_use.emplace(io.get_executor(), live, [&](const auto& c) { wired.push_back(c); });
    auto old = live.current_view();
    auto changed = std::make_shared<config::document>(*doc);
    changed->upstreams[0].timeouts.request_ms = 9000;
    live.replace(view_of(changed, old.get(), through));

    const auto& b = old->client_at(1);
    ASSERT_TRUE(b);
    EXPECT_EQ(live->made(1), b.get()) << "unchanged entry: the current view's client, made once";
    EXPECT_EQ(wired.size(), 1u);
    EXPECT_FALSE(b->closed());

    const auto& a = old->client_at(0);
    ASSERT_TRUE(a);
    EXPECT_EQ(live->made(0), nullptr) << "the reload changed it: not the current view's";
    EXPECT_EQ(wired.size(), 2u) << "wired all the same: its traffic is heard";
    EXPECT_TRUE(a->closed()) << "retired at once, with no call in flight";

    first_use->stop();
    const auto& late = live->client_at(0);
    ASSERT_TRUE(late);
    EXPECT_TRUE(late->closed()) << "made after stop: closed";
    EXPECT_FALSE(b->closed()) << "closing the made ones is stop's, not the maker's";
}
