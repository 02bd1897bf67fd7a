// Task ownership records, with time passed in.
#include "actors/federation/task_registry.hpp"
#include "protocol/list_merge.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

using namespace gate;
using namespace std::chrono_literals;
using kind = gate::actors::task_owner::kind;

namespace {
const gate::actors::task_registry::time_point t0{std::chrono::hours(1000)};
}

TEST(task_registry, a_pinned_task_is_owned_by_its_principal_only) {
    gate::actors::task_registry r;
    r.pin("t1", 7, "up-2", t0);
    auto mine = r.find("t1", 7, t0);
    EXPECT_EQ(mine.what, kind::owned);
    EXPECT_EQ(mine.upstream, "up-2");
    EXPECT_EQ(r.find("t1", 8, t0).what, kind::foreign);
    EXPECT_EQ(r.find("t2", 7, t0).what, kind::unknown);
}

TEST(task_registry, a_located_task_is_reachable_by_anyone_and_owned_by_nobody) {
    gate::actors::task_registry r;
    r.locate("found", "up-1", t0);
    for (std::uint64_t who : {1u, 2u}) {
        auto seen = r.find("found", who, t0);
        EXPECT_EQ(seen.what, kind::located);
        EXPECT_EQ(seen.upstream, "up-1");
    }
    // A pin (a call of this gateway minted it) outranks where a probe found it.
    r.pin("found", 1, "up-2", t0);
    EXPECT_EQ(r.find("found", 1, t0).what, kind::owned);
    EXPECT_EQ(r.find("found", 2, t0).what, kind::foreign);
    EXPECT_EQ(r.size(), 2u);
    EXPECT_EQ(r.expire(t0 + gate::actors::task_registry::lifetime), 2u);
    EXPECT_EQ(r.find("found", 2, t0 + gate::actors::task_registry::lifetime).what, kind::unknown);
}

TEST(task_registry, the_same_id_from_two_principals_is_two_records) {
    gate::actors::task_registry r;
    r.pin("same", 1, "up-0", t0);
    r.pin("same", 2, "up-1", t0);
    EXPECT_EQ(r.find("same", 1, t0).upstream, "up-0");
    EXPECT_EQ(r.find("same", 2, t0).upstream, "up-1");
    EXPECT_EQ(r.find("same", 3, t0).what, kind::foreign);
}

TEST(task_registry, records_expire_after_24_hours_and_a_pin_renews) {
    gate::actors::task_registry r;
    r.pin("old", 1, "up-0", t0);
    r.pin("renewed", 1, "up-0", t0);
    r.pin("renewed", 1, "up-0", t0 + 12h);
    EXPECT_EQ(r.find("old", 1, t0 + 24h - 1s).what, kind::owned);
    EXPECT_EQ(r.find("old", 1, t0 + 24h).what, kind::unknown); // expired reads as unknown
    EXPECT_EQ(r.expire(t0 + 24h), 1u);
    EXPECT_EQ(r.find("renewed", 1, t0 + 30h).what, kind::owned);
    EXPECT_EQ(r.expire(t0 + 36h), 1u);
    EXPECT_EQ(r.size(), 0u);
}

TEST(merge_by_id, orders_by_id_then_upstream_whatever_the_answer_order) {
    auto a = boost::json::parse(R"([{"taskId":"b"},{"taskId":"a"}])").as_array();
    auto b = boost::json::parse(R"([{"taskId":"a","from":"b"},{"taskId":"c"},{}])").as_array();
    std::vector<protocol::upstream_items> parts{{1, &b}, {0, &a}};
    auto merged = protocol::merge_by_id("taskId", parts);
    EXPECT_EQ(boost::json::serialize(merged),
              R"([{},{"taskId":"a"},{"taskId":"a","from":"b"},{"taskId":"b"},{"taskId":"c"}])");
}
