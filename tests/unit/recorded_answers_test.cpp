// What a simulated upstream answers from a recording (simulations/replay/recorded_traffic):
// the same request's answers in their recorded order, params in any member order, the latest
// answer to the method for other params, nothing for what was never recorded.
#include "simulations/replay/recorded_traffic.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

using namespace gate;
namespace json = boost::json;

namespace {
protocol::recorded_answer answer(std::string method, json::object params, json::value result) {
    protocol::recorded_answer a;
    a.upstream = "a";
    a.method = std::move(method);
    a.params = std::move(params);
    a.reply = {{"result", std::move(result)}};
    return a;
}
json::value result_of(const std::optional<sim::recorded_reply>& r) {
    return std::get<json::object>(*r).at("result");
}
} // namespace

TEST(recorded_answers, answers_a_request_in_recorded_order_then_repeats_the_last) {
    sim::recorded_answers answers;
    answers.add(answer("tools/call", {{"name", "echo"}, {"arguments", {{"x", 1}}}}, 1));
    answers.add(answer("tools/call", {{"name", "echo"}, {"arguments", {{"x", 1}}}}, 2));
    answers.add(answer("tools/call", {{"name", "other"}}, 3));
    json::object asked{{"arguments", {{"x", 1}}}, {"name", "echo"}}; // another member order
    EXPECT_EQ(result_of(answers.next("a", "tools/call", asked)), 1);
    EXPECT_EQ(result_of(answers.next("a", "tools/call", asked)), 2);
    EXPECT_EQ(result_of(answers.next("a", "tools/call", asked)), 2);
    // Other params: the latest recorded answer to the method.
    EXPECT_EQ(result_of(answers.next("a", "tools/call", {{"name", "never"}})), 3);
    EXPECT_FALSE(answers.next("a", "prompts/get", {}));
    EXPECT_FALSE(answers.next("b", "tools/call", asked));
}

TEST(recorded_answers, a_recorded_failure_is_what_it_answers) {
    sim::recorded_answers answers;
    protocol::recorded_answer a;
    a.upstream = "a";
    a.method = "tools/list";
    a.failed = protocol::recorded_answer::failure{"timeout", 0, "no answer"};
    answers.add(a);
    auto r = answers.next("a", "tools/list", {});
    ASSERT_TRUE(r);
    EXPECT_EQ(std::get<protocol::recorded_answer::failure>(*r).kind, "timeout");
}
