// Request header lookups (transport/http/http_server: header, header_value): by name regardless of
// case, the first of repeated fields, nothing for an absent one.
#include "transport/http/http_server.hpp"

#include <gtest/gtest.h>

namespace gate::transport {
namespace {

http_request request() {
    http_request req;
    req.set("Host", "127.0.0.1:8090");
    req.insert("mcp-session-id", "abc");
    req.insert("MCP-Protocol-Version", "2025-11-25");
    req.insert("X-Trace", "first");
    req.insert("x-trace", "second");
    req.insert("X-Tracer", "longer name");
    return req;
}

TEST(HttpHeader, FindsAFieldWhateverTheCaseOfItsName) {
    auto req = request();
    EXPECT_EQ(header(req, "Mcp-Session-Id"), "abc");
    EXPECT_EQ(header_value(req, "mcp-protocol-version"), "2025-11-25");
    EXPECT_EQ(header(req, "HOST"), "127.0.0.1:8090");
}

TEST(HttpHeader, ARepeatedFieldAnswersItsFirstValue) {
    auto req = request();
    EXPECT_EQ(header(req, "x-trace"), "first");
    EXPECT_EQ(header(req, "x-tracer"), "longer name");
}

TEST(HttpHeader, AnAbsentFieldIsNone) {
    auto req = request();
    EXPECT_FALSE(header(req, "Authorization"));
    EXPECT_EQ(header_value(req, "Authorization"), "");
    EXPECT_FALSE(header(req, "X-Trac")); // a prefix of a name is another name
    EXPECT_FALSE(header(req, ""));
}

} // namespace
} // namespace gate::transport
