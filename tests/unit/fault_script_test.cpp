// The replay's fault scripts (simulations/replay/fault_script): what each fault decides, when,
// for which replica, and a reason naming the fault for every script it refuses.
#include "simulations/replay/fault_script.hpp"

#include <gtest/gtest.h>

using namespace gate::sim;
using std::chrono::milliseconds;

namespace {
fault_script parsed(std::string_view text) {
    auto r = parse_fault_script(text);
    if (auto* e = std::get_if<std::vector<std::string>>(&r))
        ADD_FAILURE() << e->front();
    return std::get<fault_script>(r);
}
std::vector<std::string> refused(std::string_view text) {
    return std::get<std::vector<std::string>>(parse_fault_script(text));
}
} // namespace

TEST(fault_script, a_fault_decides_within_its_window_for_its_upstream_and_replica) {
    auto s = parsed(R"({"faults":[
        {"upstream":"a","kind":"hang","fromMs":100,"toMs":200},
        {"upstream":"a","replica":2,"kind":"fail","status":502,"fromMs":0,"toMs":1000},
        {"upstream":"b","kind":"slow","delayMs":40,"fromMs":0,"toMs":50},
        {"upstream":"b","kind":"restart","atMs":10}]})");
    EXPECT_FALSE(s.on_request("a", 1, milliseconds(99)));
    EXPECT_EQ(s.on_request("a", 1, milliseconds(100))->what, fault::kind::hang);
    EXPECT_FALSE(s.on_request("a", 1, milliseconds(200))); // the window is [from, to)
    // The first listed fault wins: replica 2 hangs in the hang's window, fails outside it.
    EXPECT_EQ(s.on_request("a", 2, milliseconds(150))->what, fault::kind::hang);
    auto failed = s.on_request("a", 2, milliseconds(500));
    ASSERT_TRUE(failed);
    EXPECT_EQ(failed->status, 502);
    EXPECT_EQ(s.on_request("b", 1, milliseconds(0))->delay, milliseconds(40));
    EXPECT_FALSE(s.on_request("b", 1, milliseconds(10)) &&
                 s.on_request("b", 1, milliseconds(10))->what == fault::kind::restart)
        << "a restart is scheduled, it does not answer requests";
    EXPECT_FALSE(s.on_request("c", 1, milliseconds(0)));
    EXPECT_EQ(s.faults[3].from, milliseconds(10));
    EXPECT_EQ(s.faults[1].status, 502);
    EXPECT_EQ(parsed(R"({"faults":[{"upstream":"a","kind":"fail","fromMs":0,"toMs":1}]})")
                  .faults[0]
                  .status,
              503); // the default
}

TEST(fault_script, every_fault_it_refuses_says_which_and_why) {
    EXPECT_EQ(refused("[]"),
              std::vector<std::string>{R"(a fault script is an object with a "faults" array)"});
    auto e = refused(R"({"faults":[
        {"kind":"hang"},
        {"upstream":"a","kind":"melt","fromMs":0,"toMs":1},
        {"upstream":"a","kind":"hang","fromMs":5,"toMs":5},
        {"upstream":"a","kind":"restart"},
        {"upstream":"a","kind":"fail","status":200,"fromMs":0,"toMs":1},
        {"upstream":"a","kind":"slow","fromMs":0,"toMs":1},
        {"upstream":"a","replica":0,"kind":"down","fromMs":0,"toMs":1}]})");
    EXPECT_EQ(e, (std::vector<std::string>{
                     R"(/faults/0: needs "upstream" and "kind" strings)",
                     R"(/faults/1: "kind" must be hang, fail, slow, restart, down or stall)",
                     R"(/faults/2: needs "fromMs" and a later "toMs", milliseconds from the start)",
                     R"(/faults/3: a restart needs "atMs", milliseconds from the start)",
                     R"(/faults/4: "status" must be an HTTP error status, 400 to 599)",
                     R"(/faults/5: a slow upstream needs "delayMs", above 0)",
                     R"(/faults/6: "replica" is a replica's number, from 1)"}));
}
