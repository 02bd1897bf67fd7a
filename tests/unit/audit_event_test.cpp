#include "actors/sinks/audit_event.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate;

TEST(audit_event, one_json_line_with_the_spec_field_names) {
    gate::actors::audit_event e;
    e.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000123));
    e.method = "tools/call";
    e.name = "a__echo";
    e.upstream = "alpha";
    e.outcome = protocol::outcome::ok;
    e.latency_ms = 0.2125;
    e.upstream_calls = 1;
    auto line = to_json_line(e);
    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1);
    auto v = boost::json::parse(line);
    EXPECT_EQ(v.at("time"), "2023-11-14T22:13:20.123Z");
    EXPECT_EQ(v.at("method"), "tools/call");
    EXPECT_EQ(v.at("name"), "a__echo");
    EXPECT_EQ(v.at("upstream"), "alpha");
    EXPECT_EQ(v.at("outcome"), "ok");
    EXPECT_EQ(v.at("upstreamCalls"), 1);
    EXPECT_NE(line.find("\"latencyMs\":0.212"), std::string::npos) << line;
    // Anonymous callers carry no principal fields; absent optionals are omitted.
    EXPECT_FALSE(v.as_object().contains("principal"));
    EXPECT_FALSE(v.as_object().contains("issuer"));
    EXPECT_FALSE(v.as_object().contains("itemsServed"));
}

TEST(audit_event, escapes_text_fields) {
    gate::actors::audit_event e;
    e.method = "http";
    e.outcome = protocol::outcome::error;
    e.error = "bad \"thing\"\n\x01";
    auto v = boost::json::parse(to_json_line(e));
    EXPECT_EQ(v.at("error"), "bad \"thing\"\n\x01");
}
