// The questions gate puts to clients across the 2026-07-28 line (gateway/mcp/parked_inputs):
// an awaited input is answered only by its own session; a parked call is found by its
// requestState and resumed only by a retry of the same request, once; its time running out
// drops it unless it was resumed; only its caller resumes it, and only with the same
// arguments; its upstream requests are asked as the upstream wrote them, under keys whose
// answers go back under the upstream's ids, and a question a retry leaves out is asked again.
#include "gateway/mcp/parked_inputs.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <gtest/gtest.h>

using gate::gateway::input_parking;
using gate::gateway::parked_inputs;
using gate::gateway::parked_request_key;
using gate::gateway::upstream_message;
namespace json = boost::json;
namespace protocol = gate::protocol;

namespace {

protocol::message request(std::string_view text) {
    return std::get<protocol::message>(protocol::classify(json::parse(text)));
}

protocol::message tool_call_of(std::string_view tool, std::string_view state = "") {
    json::object params{{"name", tool}};
    if (!state.empty())
        params["requestState"] = state;
    return request(json::serialize(json::object{
        {"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", std::move(params)}}));
}

const std::string parker = "https://idp\nalice";

upstream_message asked(std::string raw) {
    auto body = json::parse(raw).as_object();
    return upstream_message(std::move(body), std::move(raw));
}

TEST(parked_inputs, a_retry_must_repeat_the_method_and_its_name) {
    EXPECT_EQ(parked_request_key(tool_call_of("echo")), "tools/call\necho");
    EXPECT_NE(parked_request_key(tool_call_of("echo")), parked_request_key(tool_call_of("add")));
    EXPECT_EQ(parked_request_key(request(R"({"jsonrpc":"2.0","id":1,"method":"ping"})")), "ping");
}

TEST(parked_inputs, a_parked_call_is_resumed_by_a_retry_of_its_own_request_once) {
    parked_inputs lot;
    auto park = std::make_shared<input_parking>();
    park->request = parked_request_key(tool_call_of("echo"));
    park->principal = parker;
    auto now = std::chrono::steady_clock::now();
    auto token = lot.park(park, now);
    EXPECT_FALSE(token.empty());
    EXPECT_EQ(park->expires, now + parked_inputs::lifetime);
    EXPECT_EQ(lot.resume("someone-elses", tool_call_of("echo"), parker).what,
              parked_inputs::claim::kind::unknown);
    auto other = lot.resume(token, tool_call_of("add"), parker);
    EXPECT_EQ(other.what, parked_inputs::claim::kind::other_request);
    EXPECT_EQ(other.park, nullptr);
    EXPECT_EQ(lot.parked(), 1u); // still waiting for its own retry
    auto mine = lot.resume(token, tool_call_of("echo"), parker);
    EXPECT_EQ(mine.what, parked_inputs::claim::kind::resumed);
    EXPECT_EQ(mine.park, park);
    EXPECT_EQ(lot.parked(), 0u);
    EXPECT_EQ(lot.resume(token, tool_call_of("echo"), parker).what,
              parked_inputs::claim::kind::unknown);
}

TEST(parked_inputs, each_parked_call_has_its_own_token) {
    parked_inputs lot;
    auto now = std::chrono::steady_clock::now();
    auto a = lot.park(std::make_shared<input_parking>(), now);
    auto b = lot.park(std::make_shared<input_parking>(), now);
    EXPECT_NE(a, b);
    EXPECT_EQ(lot.parked(), 2u);
}

TEST(parked_inputs, a_call_not_resumed_in_time_is_dropped) {
    parked_inputs lot;
    auto park = std::make_shared<input_parking>();
    auto token = lot.park(park, std::chrono::steady_clock::now());
    EXPECT_FALSE(lot.expire(token, std::make_shared<input_parking>())); // not that call
    EXPECT_TRUE(lot.expire(token, park));
    EXPECT_EQ(lot.parked(), 0u);
    EXPECT_FALSE(lot.expire(token, park)); // once
}

TEST(parked_inputs, a_call_resumed_in_time_does_not_expire) {
    parked_inputs lot;
    auto park = std::make_shared<input_parking>();
    park->request = parked_request_key(tool_call_of("echo"));
    park->principal = parker;
    auto token = lot.park(park, std::chrono::steady_clock::now());
    ASSERT_EQ(lot.resume(token, tool_call_of("echo"), parker).what,
              parked_inputs::claim::kind::resumed);
    EXPECT_FALSE(lot.expire(token, park));
}

TEST(parked_inputs, the_upstreams_requests_are_asked_as_it_wrote_them_under_new_keys) {
    input_parking park;
    park.requests.push_back(
        asked(R"({"jsonrpc":"2.0","id":"u-7","method":"elicitation/create","params":{"n":1.50}})"));
    park.requests.push_back(asked(R"({"jsonrpc":"2.0","id":8,"method":"roots/list"})"));
    auto text = parked_inputs::ask(park);
    EXPECT_EQ(text, R"({"input-1":{"method":"elicitation/create","params":{"n":1.50}},)"
                    R"("input-2":{"method":"roots/list"}})");
    EXPECT_TRUE(park.requests.empty());
    ASSERT_EQ(park.keys.size(), 2u);
    EXPECT_EQ(park.keys["input-1"], "u-7");
    EXPECT_EQ(park.keys["input-2"], 8);
    EXPECT_EQ(parked_inputs::ask(park), text); // not answered yet: the same questions
    EXPECT_EQ(park.keys.size(), 2u);
}

TEST(parked_inputs, an_answer_goes_upstream_under_the_id_of_the_request_it_answers) {
    std::string source = R"({"input-1":{"action":"accept","n":2.50}})";
    auto responses = json::parse(source).as_object();
    std::string written;
    auto answer = parked_inputs::answer_of("input-1", "u-7", &responses, source, written);
    EXPECT_EQ(answer.at("id"), "u-7");
    EXPECT_EQ(answer.at("result").at("action"), "accept");
    EXPECT_EQ(written, R"({"result":{"action":"accept","n":2.50}})");
}

TEST(parked_inputs, a_question_left_unanswered_gets_an_error) {
    auto responses = json::parse(R"({"input-1":{}})").as_object();
    std::string written = "stale";
    auto missing = parked_inputs::answer_of("input-2", 8, &responses, "", written);
    EXPECT_EQ(missing.at("id"), 8);
    EXPECT_EQ(missing.at("error").at("code"), protocol::error_code::internal_error);
    EXPECT_EQ(missing.at("error").at("message"),
              "the client's retry answered input-2 with no result object");
    EXPECT_TRUE(written.empty());
    auto never = parked_inputs::answer_of("input-1", 8, nullptr, "", written);
    EXPECT_EQ(never.at("error").at("message"), "the client did not retry within 60 s");
}

TEST(parked_inputs, an_awaited_input_is_answered_by_its_own_session_only) {
    boost::asio::io_context io;
    parked_inputs lot;
    auto slot = lot.expect("gate-1", "s1", io.get_executor());
    std::string body = R"({"jsonrpc":"2.0","id":"gate-1","result":{"n":1.50}})";
    auto answer = request(body);
    EXPECT_FALSE(lot.answer("s2", answer, body));
    EXPECT_FALSE(slot->answered);
    EXPECT_FALSE(lot.answer("s1", request(R"({"jsonrpc":"2.0","id":1,"result":{}})"), ""));
    EXPECT_TRUE(lot.answer("s1", answer, body));
    EXPECT_TRUE(slot->answered);
    ASSERT_TRUE(slot->result);
    EXPECT_EQ(slot->result->source, R"({"n":1.50})");
    EXPECT_FALSE(lot.answer("s1", answer, body)); // answered once
}

TEST(parked_inputs, a_forgotten_input_takes_no_answer) {
    boost::asio::io_context io;
    parked_inputs lot;
    auto slot = lot.expect("gate-1", "s1", io.get_executor());
    lot.forget("gate-1");
    std::string body = R"({"jsonrpc":"2.0","id":"gate-1","result":{}})";
    EXPECT_FALSE(lot.answer("s1", request(body), body));
    EXPECT_FALSE(slot->answered);
}

} // namespace

TEST(parked_inputs, only_the_caller_that_parked_a_call_resumes_it) {
    parked_inputs lot;
    auto park = std::make_shared<input_parking>();
    park->request = parked_request_key(tool_call_of("echo"));
    park->principal = parker;
    auto token = lot.park(park, std::chrono::steady_clock::now());
    auto bob = lot.resume(token, tool_call_of("echo"), "https://idp\nbob");
    EXPECT_EQ(bob.what, parked_inputs::claim::kind::other_principal);
    EXPECT_EQ(bob.park, nullptr);
    EXPECT_EQ(lot.resume(token, tool_call_of("echo"), "").what,
              parked_inputs::claim::kind::other_principal); // nor anyone anonymous
    EXPECT_EQ(lot.resume(token, tool_call_of("echo"), parker).what,
              parked_inputs::claim::kind::resumed);
}

TEST(parked_inputs, a_retry_must_repeat_the_arguments_in_any_order) {
    auto call = [](std::string_view arguments) {
        return request(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo",)"
                       R"("arguments":)" +
                       std::string(arguments) + "}}");
    };
    parked_inputs lot;
    auto park = std::make_shared<input_parking>();
    park->request = parked_request_key(call(R"({"a":1,"b":"x"})"));
    park->arguments = gate::gateway::parked_arguments(call(R"({"a":1,"b":"x"})"));
    park->principal = parker;
    auto token = lot.park(park, std::chrono::steady_clock::now());
    EXPECT_EQ(lot.resume(token, call(R"({"a":2,"b":"x"})"), parker).what,
              parked_inputs::claim::kind::other_request);
    EXPECT_EQ(lot.resume(token, call(R"({"a":1})"), parker).what,
              parked_inputs::claim::kind::other_request);
    EXPECT_EQ(lot.resume(token, tool_call_of("echo"), parker).what,
              parked_inputs::claim::kind::other_request); // no arguments at all
    EXPECT_EQ(lot.resume(token, call(R"({"b":"x","a":1})"), parker).what,
              parked_inputs::claim::kind::resumed);
}

TEST(parked_inputs, a_question_the_retry_leaves_out_is_asked_again) {
    input_parking park;
    park.requests.push_back(
        asked(R"({"jsonrpc":"2.0","id":"u-7","method":"elicitation/create","params":{"n":1.50}})"));
    park.requests.push_back(asked(R"({"jsonrpc":"2.0","id":8,"method":"roots/list"})"));
    parked_inputs::ask(park);
    auto responses = json::parse(R"({"input-2":{"roots":[]},"stray":{}})").as_object();
    auto answering = parked_inputs::answered_now(park, &responses);
    ASSERT_EQ(answering.size(), 1u);
    EXPECT_EQ(answering.at("input-2"), 8);
    EXPECT_TRUE(park.ask_again);
    // Asked again as first asked, under its own key.
    EXPECT_EQ(parked_inputs::ask(park),
              R"({"input-1":{"method":"elicitation/create","params":{"n":1.50}}})");
    EXPECT_FALSE(park.ask_again);
    json::object none;
    EXPECT_TRUE(parked_inputs::answered_now(park, &none).empty()); // no answers: asked again
    EXPECT_TRUE(park.ask_again);
    // The client never came back: every question is answered (with an error) now.
    auto last = parked_inputs::answered_now(park, nullptr);
    ASSERT_EQ(last.size(), 1u);
    EXPECT_EQ(last.at("input-1"), "u-7");
    EXPECT_FALSE(park.ask_again);
    EXPECT_EQ(parked_inputs::ask(park), "{}");
}
