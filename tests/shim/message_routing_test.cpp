#include "shim/message_routing.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate::shim;
using gate::protocol::message;

namespace {
message msg(std::string_view text) {
    return std::get<message>(gate::protocol::classify(boost::json::parse(text)));
}
} // namespace

TEST(MessageRouting, AnswersGoToTheirRequestAndUnknownAnswersNowhere) {
    inflight_requests f;
    EXPECT_TRUE(f.add(msg(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"), false));
    EXPECT_TRUE(f.add(msg(R"({"jsonrpc":"2.0","id":"1","method":"tools/list"})"), false));
    EXPECT_FALSE(f.add(msg(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"), false));
    auto r = f.route_of(msg(R"({"jsonrpc":"2.0","id":"1","result":{}})"));
    EXPECT_EQ(r.where, route::to::request);
    EXPECT_EQ(r.request_key, "\"1\"");
    EXPECT_EQ(f.route_of(msg(R"({"jsonrpc":"2.0","id":1,"result":{}})")).request_key, "1");
    EXPECT_EQ(f.route_of(msg(R"({"jsonrpc":"2.0","id":2,"result":{}})")).where, route::to::nowhere);
}

TEST(MessageRouting, ProgressFollowsItsToken) {
    inflight_requests f;
    f.add(
        msg(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"a"}}})"),
        true);
    f.add(
        msg(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":7}}})"),
        true);
    auto r = f.route_of(msg(
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}})"));
    EXPECT_EQ(r.where, route::to::request);
    EXPECT_EQ(r.request_key, "2");
}

TEST(MessageRouting, ServerRequestsRideOnTheOldestStreamingRequestElseTheSessionStream) {
    inflight_requests f;
    auto sampling = msg(R"({"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage"})");
    EXPECT_EQ(f.route_of(sampling).where, route::to::session_stream);
    f.add(msg(R"({"jsonrpc":"2.0","id":9,"method":"tools/call"})"), false); // JSON only
    EXPECT_EQ(f.route_of(sampling).where, route::to::session_stream);
    f.add(msg(R"({"jsonrpc":"2.0","id":5,"method":"tools/call"})"), true);
    f.add(msg(R"({"jsonrpc":"2.0","id":3,"method":"tools/call"})"), true);
    EXPECT_EQ(f.route_of(sampling).request_key, "5");
    f.remove("5");
    EXPECT_EQ(f.route_of(sampling).request_key, "3");
    // Session-wide news never rides on a request.
    EXPECT_EQ(
        f.route_of(msg(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})")).where,
        route::to::session_stream);
    EXPECT_EQ(f.route_of(msg(R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})"))
                  .request_key,
              "3");
}
