// upstream_sessions against a scripted upstream on 127.0.0.1: a session opens
// once however many callers need it at once (single flight), its waiters fail
// with a failed handshake and the next caller tries again, a replica that
// cannot be reached passes the handshake to the next, a new session is
// published whole (initialize, then notifications/initialized, then its GET
// stream), the root session's generations are heard by the client, a 2026-07-28
// upstream's root session is its discover result (and a session client's bridged
// session there asks for log messages by default), and bridged sessions are
// ended and retired.
#include "tests/unit/upstream_rig.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using gateway::call_context;
using gateway::session_ptr;
using gateway::upstream_failure;
using failure = std::optional<upstream_failure>;

struct sessions_test : units_fixture {
    gateway::upstream_sessions& sessions(config::upstream cfg) {
        return make(std::move(cfg)).sessions;
    }
    gateway::upstream_sessions& sessions() { return make().sessions; }
    failure open(const session_ptr& s, const call_context& ctx = {}) {
        return run(io, units->sessions.ensure_session(s, ctx));
    }
    // Two callers that need `s` at once.
    std::pair<failure, failure> open_twice(const session_ptr& s) {
        return run(io,
                   [](gateway::upstream_sessions& ss,
                      session_ptr s) -> asio::awaitable<std::pair<failure, failure>> {
                       using namespace asio::experimental::awaitable_operators;
                       auto both = co_await (ss.ensure_session(s, {}) && ss.ensure_session(s, {}));
                       co_return std::pair{std::get<0>(both), std::get<1>(both)};
                   }(units->sessions, s));
    }
};

TEST_F(sessions_test, a_session_is_published_whole_then_its_get_stream_is_opened) {
    auto& ss = sessions();
    EXPECT_FALSE(open(ss.root()));
    const auto& root = *ss.root();
    EXPECT_TRUE(root.life.ready());
    EXPECT_EQ(root.state.id, "s1");
    EXPECT_EQ(root.state.protocol_version, "2025-11-25");
    EXPECT_EQ(root.init_result.at("serverInfo").at("name"), "loopback");
    ASSERT_GE(upstream.requests.size(), 3u);
    EXPECT_EQ(upstream.requests[0].method, "initialize");
    EXPECT_EQ(upstream.requests[0].session, "");
    EXPECT_EQ(upstream.requests[1].method, "notifications/initialized");
    EXPECT_EQ(upstream.requests[1].session, "s1");
    // The GET stream was asked for before the session was handed to its first
    // caller.
    EXPECT_EQ(upstream.requests[2].verb, "GET");
    EXPECT_EQ(upstream.requests[2].session, "s1");
}

TEST_F(sessions_test, concurrent_callers_open_a_session_once) {
    auto& ss = sessions();
    auto [a, b] = open_twice(ss.root());
    EXPECT_FALSE(a);
    EXPECT_FALSE(b);
    EXPECT_EQ(upstream.count("initialize"), 1u);
}

TEST_F(sessions_test, the_waiters_of_a_failed_handshake_fail_and_the_next_caller_tries_again) {
    auto& ss = sessions();
    int initializes = 0;
    upstream.on = [&](const seen& r) {
        if (r.method == "initialize" && ++initializes == 1)
            return reply::status_only(500);
        return upstream.mcp(r);
    };
    auto [a, b] = open_twice(ss.root());
    ASSERT_TRUE(a);
    ASSERT_TRUE(b);
    EXPECT_NE(a->message.find("HTTP 500"), std::string::npos);
    EXPECT_NE(b->message.find("handshake failed"), std::string::npos);
    EXPECT_EQ(upstream.count("initialize"), 1u);
    EXPECT_FALSE(open(ss.root()));
    EXPECT_EQ(upstream.count("initialize"), 2u);
}

TEST_F(sessions_test, a_replica_that_cannot_be_reached_passes_the_handshake_to_the_next) {
    auto cfg = upstream_at(dead_url());
    cfg.urls.push_back(upstream.url());
    auto& ss = sessions(cfg);
    EXPECT_FALSE(open(ss.root()));
    ASSERT_NE(ss.root()->ep, nullptr);
    EXPECT_EQ(ss.root()->ep->index, 1u);
}

TEST_F(sessions_test, an_upstream_that_refuses_initialize_fails_with_its_own_error) {
    auto& ss = sessions();
    upstream.on = [](const seen& r) {
        return reply::json(json::serialize(
            json::object{{"jsonrpc", "2.0"},
                         {"id", r.id},
                         {"error", {{"code", -32602}, {"message", "unsupported version"}}}}));
    };
    auto f = open(ss.root());
    ASSERT_TRUE(f);
    EXPECT_EQ(f->what, upstream_failure::kind::protocol);
    ASSERT_TRUE(f->answer);
    EXPECT_EQ(f->answer->body().at("error").at("code"), -32602);
    EXPECT_FALSE(ss.root()->life.ready());
}

TEST_F(sessions_test, each_root_session_published_is_heard_with_its_generation) {
    auto& ss = sessions();
    EXPECT_FALSE(open(ss.root()));
    call_context bridged;
    bridged.bridge = "b1";
    EXPECT_FALSE(open(ss.session_for(bridged))); // a bridged session is not gate's own
    ss.reset_session(*ss.root());
    EXPECT_FALSE(open(ss.root()));
    EXPECT_EQ(units->hooks.published, (std::vector<std::uint64_t>{1, 2}));
    EXPECT_EQ(ss.root()->state.id, "s3");
}

TEST_F(sessions_test, a_2026_07_28_upstreams_root_session_is_its_discover_result) {
    auto cfg = upstream_at(upstream.url());
    cfg.protocol = config::protocol_mode::v2026_07_28;
    auto& ss = sessions(cfg);
    upstream.on = [](const seen& r) {
        return reply::result(
            r.id, {{"supportedVersions", {"2026-07-28"}},
                   {"capabilities", {{"tools", json::object{}}}},
                   {"_meta", {{"io.modelcontextprotocol/serverInfo", {{"name", "modern"}}}}},
                   {"instructions", "be brief"}});
    };
    EXPECT_FALSE(open(ss.root()));
    EXPECT_EQ(upstream.count("server/discover"), 1u);
    EXPECT_EQ(upstream.count("initialize"), 0u);
    const auto& init = ss.root()->init_result;
    EXPECT_EQ(init.at("protocolVersion"), "2026-07-28");
    EXPECT_EQ(init.at("instructions"), "be brief");
    EXPECT_EQ(ss.root()->state.protocol_version, "2026-07-28");
    EXPECT_EQ(units->hooks.published, (std::vector<std::uint64_t>{1}));
}

TEST_F(sessions_test, an_auto_upstream_that_does_not_offer_2026_07_28_is_initialized) {
    auto cfg = upstream_at(upstream.url());
    cfg.protocol = config::protocol_mode::auto_;
    auto& ss = sessions(cfg);
    upstream.on = [&](const seen& r) {
        if (r.method == "server/discover")
            return reply::result(r.id, {{"supportedVersions", {"2025-11-25"}}});
        return upstream.mcp(r);
    };
    EXPECT_FALSE(open(ss.root()));
    EXPECT_TRUE(units->state.era_known);
    EXPECT_FALSE(units->state.modern);
    EXPECT_EQ(upstream.count("initialize"), 1u);
    EXPECT_EQ(ss.root()->state.id, "s1");
}

TEST_F(sessions_test, a_session_clients_bridge_at_a_2026_07_28_upstream_asks_for_logs_by_default) {
    auto cfg = upstream_at(upstream.url());
    cfg.protocol = config::protocol_mode::v2026_07_28;
    auto& ss = sessions(cfg);
    call_context client;
    client.bridge = "downstream-1";
    client.session_client = true;
    EXPECT_EQ(ss.session_for(client)->log_level, "debug");
    // Not a session's client (a caller's own bridge): no level it did not ask for.
    call_context caller;
    caller.bridge = "principal iss\nalice";
    EXPECT_EQ(ss.session_for(caller)->log_level, std::nullopt);
}

TEST_F(sessions_test, a_session_clients_bridge_at_an_earlier_upstream_sets_no_level) {
    auto& ss = sessions(); // the upstream decides what it sends unasked
    call_context client;
    client.bridge = "downstream-1";
    client.session_client = true;
    EXPECT_EQ(ss.session_for(client)->log_level, std::nullopt);
}

TEST_F(sessions_test, a_callers_credential_never_goes_on_a_shared_or_another_principals_session) {
    auto& ss = sessions();
    auto alice = std::make_shared<gateway::caller_credential>(
        gateway::caller_credential{"t1", "iss", "alice"});
    auto bob = std::make_shared<gateway::caller_credential>(
        gateway::caller_credential{"t2", "iss", "bob"});
    call_context shared;
    shared.caller = alice;
    EXPECT_EQ(ss.session_for(shared), nullptr);
    call_context mine;
    mine.bridge = "b";
    mine.caller = alice;
    auto s = ss.session_for(mine);
    ASSERT_NE(s, nullptr);
    call_context theirs = mine;
    theirs.caller = bob;
    EXPECT_EQ(ss.session_for(theirs), nullptr);
    call_context again = mine;
    again.caller = std::make_shared<gateway::caller_credential>(
        gateway::caller_credential{"t3", "iss", "alice"});
    EXPECT_EQ(ss.session_for(again), s);
    EXPECT_EQ(s->caller->token, "t3"); // its latest token
}

TEST_F(sessions_test, an_ended_bridge_is_deleted_upstream_and_a_busy_one_is_not_retired) {
    auto& ss = sessions();
    call_context ctx;
    ctx.bridge = "b1";
    auto s = ss.session_for(ctx);
    EXPECT_FALSE(open(s));
    s->life.enter(); // a request is using it
    EXPECT_FALSE(ss.retire_bridge("b1"));
    EXPECT_TRUE(ss.has_bridge("b1"));
    s->life.leave();
    EXPECT_TRUE(ss.retire_bridge("b1"));
    EXPECT_FALSE(ss.has_bridge("b1"));
    EXPECT_TRUE(s->life.ended());
    EXPECT_TRUE(run_until(
        io, [&] { return upstream.count("") > 0 && upstream.requests.back().verb == "DELETE"; }));
    EXPECT_EQ(upstream.requests.back().session, s->state.id);
    // An ended session opens no more.
    auto f = open(s);
    ASSERT_TRUE(f);
    EXPECT_NE(f->message.find("ended"), std::string::npos);
}

TEST_F(sessions_test, the_upstreams_messages_on_a_get_stream_go_to_the_client_with_their_session) {
    auto& ss = sessions();
    upstream.on = [&](const seen& r) {
        if (r.verb == "GET") {
            reply a;
            a.events = std::vector<std::string>{
                R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x"}})"};
            return a;
        }
        return upstream.mcp(r);
    };
    call_context ctx;
    ctx.bridge = "b1";
    EXPECT_FALSE(open(ss.session_for(ctx)));
    EXPECT_TRUE(run_until(io, [&] { return !units->session_wide.heard.empty(); }));
    EXPECT_EQ(units->session_wide.heard.at(0).first, "b1");
    ss.close(); // no stream is opened again after the upstream ended this one
}

TEST_F(sessions_test, a_closed_client_opens_no_new_session) {
    auto& ss = sessions();
    units->state.closed = true;
    auto f = open(ss.root());
    ASSERT_TRUE(f);
    EXPECT_EQ(f->what, upstream_failure::kind::connect_error);
    EXPECT_TRUE(upstream.requests.empty());
}

} // namespace
} // namespace gate::test
