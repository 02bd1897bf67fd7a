// upstream_credentials: the header each request to an upstream carries. None; a
// static secret from the environment (known at once); the caller's own token at
// a passthrough upstream, and none for gate's own traffic there; a caller
// ignored where the upstream takes gate's credential; a token endpoint that
// fails is a failure that is not the upstream's.
#include "gateway/upstream/upstream_credentials.hpp"
#include "tests/unit/upstream_loopback.hpp"

#include <cstdlib>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

namespace asio = boost::asio;
using gateway::caller_credential;
using gateway::upstream_credentials;
using gateway::upstream_failure;

const caller_credential alice{"alice-token", "https://idp", "alice"};

std::string line_of(asio::io_context& io, upstream_credentials& c, const caller_credential* who) {
    auto got = run(io, c.line(who));
    if (auto* f = std::get_if<upstream_failure>(&got))
        return "failure: " + f->message;
    return std::get<std::string>(got);
}

TEST(upstream_credentials, an_upstream_without_one_gets_no_header) {
    asio::io_context io;
    auto cfg = upstream_at("http://127.0.0.1:9/mcp");
    upstream_credentials c(io.get_executor(), cfg);
    EXPECT_FALSE(c.per_caller());
    ASSERT_TRUE(c.line_now(nullptr));
    EXPECT_EQ(std::get<std::string>(*c.line_now(nullptr)), "");
    EXPECT_EQ(line_of(io, c, &alice), ""); // a caller does not bring one here
}

TEST(upstream_credentials, a_static_secret_comes_from_the_environment) {
    ::setenv("GATE_TEST_UPSTREAM_SECRET", "s3cret", 1);
    asio::io_context io;
    auto cfg = upstream_at("http://127.0.0.1:9/mcp");
    cfg.auth.strategy = "static";
    cfg.auth.secret_ref = "GATE_TEST_UPSTREAM_SECRET";
    upstream_credentials c(io.get_executor(), cfg);
    EXPECT_EQ(line_of(io, c, nullptr), "Authorization: Bearer s3cret");
    EXPECT_EQ(line_of(io, c, &alice),
              "Authorization: Bearer s3cret"); // gate's, not alice's
    cfg.auth.header = "X-Api-Key";
    upstream_credentials keyed(io.get_executor(), cfg);
    EXPECT_EQ(line_of(io, keyed, nullptr), "X-Api-Key: s3cret");
}

TEST(upstream_credentials, passthrough_sends_the_callers_token_and_none_of_gates) {
    asio::io_context io;
    auto cfg = upstream_at("http://127.0.0.1:9/mcp");
    cfg.auth.strategy = "passthrough";
    upstream_credentials c(io.get_executor(), cfg);
    EXPECT_TRUE(c.per_caller());
    ASSERT_TRUE(c.line_now(&alice)); // known without a wait
    EXPECT_EQ(std::get<std::string>(*c.line_now(&alice)), "Authorization: Bearer alice-token");
    EXPECT_EQ(std::get<std::string>(*c.line_now(nullptr)),
              ""); // gate's own traffic
}

TEST(upstream_credentials, a_token_endpoint_that_fails_is_not_the_upstreams_fault) {
    asio::io_context io;
    loopback_upstream idp{io};
    idp.on = [](const seen&) { return reply::json(R"({"error":"server_error"})", 500); };
    ::setenv("GATE_TEST_CLIENT_SECRET", "cs", 1);
    auto cfg = upstream_at("http://127.0.0.1:9/mcp");
    cfg.auth.strategy = "client-credentials";
    cfg.auth.token_endpoint = idp.url();
    cfg.auth.client_id = "gate";
    cfg.auth.client_auth_ = config::client_auth{"client_secret_post", ""};
    cfg.auth.client_auth_->secret_ref = "GATE_TEST_CLIENT_SECRET";
    upstream_credentials c(io.get_executor(), cfg);
    EXPECT_FALSE(c.line_now(nullptr)); // the token endpoint must be asked
    auto got = run(io, c.line(nullptr));
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(got));
    const auto& f = std::get<upstream_failure>(got);
    EXPECT_EQ(f.what, upstream_failure::kind::connect_error);
    EXPECT_FALSE(f.upstream_at_fault);
    EXPECT_EQ(idp.requests.size(), 1u);
}

} // namespace
} // namespace gate::test
