// A parked call as a fleet's store keeps it (gateway/mcp/parked_inputs: parked_record,
// parked_output): read back exactly as written (the questions' text byte for byte, the
// upstream's ids as they were), anything else refused; a retry on another instance is checked
// against it as the parking instance checks its own; a call rebuilt from it asks again what a
// retry leaves out, as first asked.
#include "gateway/mcp/parked_inputs.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

using gate::gateway::decode_parked;
using gate::gateway::decode_parked_output;
using gate::gateway::encode_parked;
using gate::gateway::encode_parked_output;
using gate::gateway::input_parking;
using gate::gateway::parked_inputs;
using gate::gateway::parked_output;
using gate::gateway::parked_record;
namespace json = boost::json;
namespace protocol = gate::protocol;

namespace {

protocol::message records_call(std::string_view name, std::string_view arguments) {
    return std::get<protocol::message>(protocol::classify(
        json::parse(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":")" +
                    std::string(name) + R"(","arguments":)" + std::string(arguments) + "}}")));
}

parked_record sample() {
    parked_record r;
    r.owner = "inst-a";
    r.call = "c0ffee";
    r.principal = "https://idp\nalice";
    r.request = gate::gateway::parked_request_key(records_call("ev__sample", R"({"prompt":"p"})"));
    r.arguments = json::parse(R"({"prompt":"p","n":[1,2]})");
    r.upstream = "ev";
    r.at = {"sess-1", "2025-11-25", 1};
    r.keys = {{"input-1", json::value("u-7")}, {"input-2", json::value(8)}};
    r.asked = {{"input-1", R"({"method":"elicitation/create","params":{"n":1.50}})"},
               {"input-2", R"({"method":"roots/list"})"}};
    return r;
}

} // namespace

TEST(parked_records, a_record_reads_back_as_written) {
    auto r = sample();
    auto back = decode_parked(encode_parked(r));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->owner, "inst-a");
    EXPECT_EQ(back->call, "c0ffee");
    EXPECT_EQ(back->principal, r.principal);
    EXPECT_EQ(back->request, r.request);
    EXPECT_EQ(back->arguments, r.arguments);
    EXPECT_EQ(back->upstream, "ev");
    EXPECT_EQ(back->at.id, "sess-1");
    EXPECT_EQ(back->at.protocol_version, "2025-11-25");
    EXPECT_EQ(back->at.endpoint, 1u);
    EXPECT_EQ(back->keys, r.keys);   // a string id stays a string, a number a number
    EXPECT_EQ(back->asked, r.asked); // each question's text byte for byte ("1.50")
}

TEST(parked_records, a_record_gate_did_not_write_is_refused) {
    auto text = encode_parked(sample());
    EXPECT_FALSE(decode_parked("not json"));
    EXPECT_FALSE(decode_parked("[]"));
    for (const auto* member : {"owner", "call", "principal", "request", "arguments", "upstream",
                               "session", "keys", "asked"}) {
        auto o = json::parse(text).as_object();
        o.erase(member);
        EXPECT_FALSE(decode_parked(json::serialize(o))) << member;
    }
    auto bad = [&](std::string_view path, json::value v) {
        auto o = json::parse(text).as_object();
        if (path == "endpoint")
            o["session"].as_object()["endpoint"] = std::move(v);
        else
            o["asked"].as_object()["input-1"] = std::move(v);
        return decode_parked(json::serialize(o));
    };
    EXPECT_FALSE(bad("endpoint", -1));
    EXPECT_FALSE(bad("endpoint", "1"));
    EXPECT_FALSE(bad("asked", json::object{})); // a question is kept as its text
}

TEST(parked_records, the_output_of_a_call_reads_back_as_written) {
    parked_output o{{R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"p":0.50}})"},
                    R"({"jsonrpc":"2.0","id":1,"result":{"content":[]}})",
                    404};
    auto back = decode_parked_output(encode_parked_output(o));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->events, o.events);
    EXPECT_EQ(back->final, o.final);
    EXPECT_EQ(back->status, 404u);
    EXPECT_FALSE(decode_parked_output(R"({"events":[],"final":"x","status":99})"));
    EXPECT_FALSE(decode_parked_output(R"({"events":[1],"final":"x","status":200})"));
    EXPECT_FALSE(decode_parked_output(R"({"events":[],"status":200})"));
    EXPECT_FALSE(decode_parked_output(R"({"final":"x","status":200})"));
}

TEST(parked_records, a_retry_elsewhere_is_checked_as_the_parking_instance_checks_it) {
    auto r = sample();
    using kind = parked_inputs::claim::kind;
    auto check = [&](const protocol::message& retry, const std::string& who) {
        return parked_inputs::check(r.principal, r.request, r.arguments, retry, who);
    };
    EXPECT_EQ(check(records_call("ev__sample", R"({"n":[1,2],"prompt":"p"})"), r.principal),
              kind::resumed); // the same arguments, in another order
    EXPECT_EQ(check(records_call("ev__sample", R"({"n":[1,2],"prompt":"p"})"), "https://idp\nbob"),
              kind::other_principal);
    EXPECT_EQ(check(records_call("ev__sample", R"({"n":[2,1],"prompt":"p"})"), r.principal),
              kind::other_request);
    EXPECT_EQ(check(records_call("ev__other", R"({"n":[1,2],"prompt":"p"})"), r.principal),
              kind::other_request);
}

TEST(parked_records, a_call_rebuilt_from_its_record_asks_again_what_a_retry_left_out) {
    auto r = *decode_parked(encode_parked(sample()));
    input_parking here;
    here.keys = r.keys;
    here.asked = r.asked;
    auto responses = json::parse(R"({"input-2":{"roots":[]}})").as_object();
    auto answering = parked_inputs::answered_now(here, &responses);
    ASSERT_EQ(answering.size(), 1u);
    EXPECT_EQ(answering.at("input-2"), 8); // under the upstream's own id
    EXPECT_TRUE(here.ask_again);
    EXPECT_EQ(parked_inputs::ask(here),
              R"({"input-1":{"method":"elicitation/create","params":{"n":1.50}}})");
}

TEST(parked_records, a_parked_call_is_held_until_resumed_or_expired) {
    parked_inputs lot;
    auto park = std::make_shared<input_parking>();
    park->request = gate::gateway::parked_request_key(records_call("echo", "{}"));
    park->principal = "p";
    auto token = lot.park(park, std::chrono::steady_clock::now());
    EXPECT_TRUE(lot.holds(token, park));
    EXPECT_FALSE(lot.holds(token, std::make_shared<input_parking>()));
    EXPECT_FALSE(lot.holds("other", park));
    EXPECT_TRUE(lot.expire(token, park));
    EXPECT_FALSE(lot.holds(token, park));
}
