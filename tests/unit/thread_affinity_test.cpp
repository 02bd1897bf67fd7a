// Which io thread answers a request (gateway/entry/thread_affinity, protocol/shard_key): keys
// gate mints name their thread, a session's requests and a parked call's retry find it from
// the header or the body as any client writes them, and anything else stays where it arrived.
// A request that moves is written back as it was read (transport/http/request_wire).
#include "gateway/entry/thread_affinity.hpp"
#include "protocol/shard_key.hpp"
#include "transport/http/request_wire.hpp"

#include <boost/beast/http/field.hpp>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <utility>

using gate::gateway::minted_request_state;
using gate::gateway::owning_thread;
using gate::protocol::random_id_in;
using gate::protocol::shard_of;
using gate::protocol::shard_place;
namespace http = boost::beast::http;

namespace {

gate::transport::http_request request(http::verb verb, std::string target) {
    gate::transport::http_request req;
    req.method(verb);
    req.target(target);
    req.version(11);
    return req;
}

const std::string token_a = "0123456789abcdef0123456789abcdef";

} // namespace

TEST(ShardKey, AMintedIdNamesTheThreadThatMintedItAndThreadsShareTheKeys) {
    std::map<std::size_t, int> seen;
    for (std::size_t index = 0; index < 4; ++index)
        for (int i = 0; i < 50; ++i) {
            auto id = random_id_in({index, 4});
            EXPECT_EQ(id.size(), 32u);
            EXPECT_EQ(shard_of(id, 4), index);
        }
    // Random ids spread over the threads (a fixed hash of random bytes): none is left out.
    for (int i = 0; i < 400; ++i)
        ++seen[shard_of(random_id_in({0, 1}), 4)];
    ASSERT_EQ(seen.size(), 4u);
    for (const auto& [thread, n] : seen)
        EXPECT_GT(n, 50) << "thread " << thread;
    EXPECT_EQ(shard_of("anything", 1), 0u);
    EXPECT_EQ(shard_of("", 3), shard_of("", 3));
    EXPECT_LT(shard_of("not gate's", 3), 3u);
}

TEST(ThreadAffinity, ASessionsRequestsGoToTheThreadItsIdNames) {
    auto id = random_id_in({2, 3});
    for (auto verb : {http::verb::post, http::verb::get, http::verb::delete_}) {
        auto req = request(verb, "/mcp");
        req.set("Mcp-Session-Id", id);
        EXPECT_EQ(owning_thread(req, false, "/mcp", 3), 2u);
        // Asked once, on the header: the body does not move it again.
        EXPECT_EQ(owning_thread(req, true, "/mcp", 3), std::nullopt);
    }
    auto req = request(http::verb::post, "/mcp?x=1");
    req.set("Mcp-Session-Id", id);
    EXPECT_EQ(owning_thread(req, false, "/mcp", 3), 2u) << "the query is not the path";
    EXPECT_EQ(owning_thread(req, false, "/other", 3), std::nullopt) << "another endpoint";
    EXPECT_EQ(owning_thread(req, false, "/mcp", 1), std::nullopt) << "one thread";
    req.set("Mcp-Session-Id", "");
    EXPECT_EQ(owning_thread(req, false, "/mcp", 3), std::nullopt) << "an empty id is no session";
    // /health is the first thread's: one prober, one report reused for a second.
    auto health = request(http::verb::get, "/health?x");
    EXPECT_EQ(owning_thread(health, false, "/mcp", 3), 0u);
    EXPECT_EQ(owning_thread(health, true, "/mcp", 3), std::nullopt);
    EXPECT_EQ(owning_thread(request(http::verb::get, "/icons/ns/0123"), false, "/mcp", 3), 0u);
    EXPECT_EQ(owning_thread(request(http::verb::get, "/metrics"), false, "/mcp", 3), 0u);
    EXPECT_EQ(owning_thread(request(http::verb::get, "/api/federation"), false, "/mcp", 3),
              std::nullopt);
}

TEST(ThreadAffinity, UsersAccountPagesGoToTheFirstThreadThatKeepsTheAccounts) {
    const std::pair<http::verb, const char*> pages[] = {
        {http::verb::get, "/oauth/connect?login=ab"},
        {http::verb::post, "/oauth/connect"},
        {http::verb::get, "/oauth/callback?state=cd&code=x"},
        {http::verb::get, "/api/connections"},
        {http::verb::delete_, "/api/connections/files"},
        {http::verb::get, "/api/accounts?upstream=files"},
        {http::verb::delete_, "/api/accounts"}};
    for (auto [verb, target] : pages) {
        auto req = request(verb, target);
        EXPECT_EQ(owning_thread(req, false, "/mcp", 4), 0u) << target;
        EXPECT_EQ(owning_thread(req, true, "/mcp", 4), std::nullopt) << target;
        EXPECT_EQ(owning_thread(req, false, "/mcp", 1), std::nullopt) << target;
    }
    // Pages that hold nothing of the accounts are answered where they arrive.
    for (auto target : {"/oauth/client-metadata.json", "/oauth/token", "/api/connectionsx",
                        "/api/accounts/x", "/oauth/connected"})
        EXPECT_EQ(owning_thread(request(http::verb::get, target), false, "/mcp", 4), std::nullopt)
            << target;
}

TEST(ThreadAffinity, ARetryGoesToTheThreadThatParkedItsCallHoweverItsJsonIsSpaced) {
    auto state = random_id_in({1, 2});
    for (std::string body :
         {R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","requestState":")" +
              state + R"("}})",
          R"({ "params" : { "requestState" :  ")" + state + R"(" , "name": "a" } })",
          "{\n\t\"params\": {\n\t\t\"requestState\":\n\t\t\"" + state + "\"\n\t}\n}"}) {
        auto req = request(http::verb::post, "/mcp");
        req.body() = body;
        EXPECT_EQ(owning_thread(req, false, "/mcp", 2), std::nullopt) << "not before the body";
        EXPECT_EQ(owning_thread(req, true, "/mcp", 2), 1u) << body;
    }
}

TEST(ThreadAffinity, OnlyAStateGateMintedMovesARequest) {
    EXPECT_EQ(minted_request_state(R"({"requestState":")" + token_a + R"("})"), token_a);
    // An upstream's own state, forwarded from wherever the retry arrives.
    EXPECT_EQ(minted_request_state(R"({"requestState":"opaque-upstream-state"})"), std::nullopt);
    EXPECT_EQ(minted_request_state(R"({"requestState":")" + token_a + R"(x"})"), std::nullopt);
    EXPECT_EQ(minted_request_state(R"({"requestState":"0123456789ABCDEF0123456789ABCDEF"})"),
              std::nullopt);
    EXPECT_EQ(minted_request_state(R"({"requestState":12})"), std::nullopt);
    // The word as a value is no member; a later member of that name still counts.
    EXPECT_EQ(
        minted_request_state(R"({"a":"requestState","b":{"requestState":")" + token_a + R"("}})"),
        token_a);
    EXPECT_EQ(minted_request_state(R"({"requestState")"), std::nullopt) << "cut short";
    EXPECT_EQ(minted_request_state(R"({"requestState":")" + token_a), std::nullopt) << "unended";
    EXPECT_EQ(minted_request_state(""), std::nullopt);
    auto get = request(http::verb::get, "/mcp");
    get.body() = R"({"requestState":")" + token_a + R"("})";
    EXPECT_EQ(owning_thread(get, true, "/mcp", 2), std::nullopt) << "only a POST carries one";
}

TEST(RequestWire, AHeaderIsWrittenAsReadWithItsFieldsInOrder) {
    auto req = request(http::verb::post, "/mcp?a=b");
    req.insert("Host", "127.0.0.1:1");
    req.insert("X-Twice", "1");
    req.insert("X-Twice", "2");
    req.insert("Content-Length", "5");
    EXPECT_EQ(gate::transport::request_wire(req, false),
              "POST /mcp?a=b HTTP/1.1\r\nHost: 127.0.0.1:1\r\nX-Twice: 1\r\nX-Twice: "
              "2\r\nContent-Length: 5\r\n\r\n");
}

TEST(RequestWire, ABodyReadGoesWithItUnchunkedAndWithoutAnAnsweredExpect) {
    auto req = request(http::verb::post, "/mcp");
    req.insert("Host", "h");
    req.insert("Transfer-Encoding", "chunked");
    req.insert("Expect", "100-continue");
    req.body() = "{\"x\":1}";
    EXPECT_EQ(gate::transport::request_wire(req, true),
              "POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\n{\"x\":1}");
    req.version(10);
    EXPECT_TRUE(gate::transport::request_wire(req, true).starts_with("POST /mcp HTTP/1.0\r\n"));
}
