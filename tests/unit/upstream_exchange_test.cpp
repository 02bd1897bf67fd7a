// upstream_exchange against a scripted upstream on 127.0.0.1: JSON and
// event-stream answers, the upstream's own messages on an answer's stream (a
// list change there heard by the client too), the pool, a pooled connection
// found dead, the request's deadline (kept by the io thread's watch, which
// closes the connection), headers refused before they are sent, the per-caller
// 401, the 2026-07-28 header mirrors, the DELETE that ends a session and
// long-lived event streams.
#include "tests/unit/upstream_rig.hpp"

#include <boost/json.hpp>
#include <deque>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using gateway::http_answer;
using gateway::outgoing_message;
using gateway::session_origin;
using gateway::session_state;
using gateway::upstream_failure;
using clock = std::chrono::steady_clock;

struct exchange_test : units_fixture {
    gateway::upstream_exchange& exchange(config::upstream cfg) {
        return make(std::move(cfg)).exchange;
    }
    gateway::upstream_exchange& exchange() { return make().exchange; }

    std::deque<json::object> messages; // an outgoing message's views point into its object
    outgoing_message call(std::int64_t id, std::string name = "echo") {
        messages.push_back(json::object{{"jsonrpc", "2.0"},
                                        {"id", id},
                                        {"method", "tools/call"},
                                        {"params", {{"name", name}}}});
        return outgoing_message::of(messages.back());
    }
    std::variant<http_answer, upstream_failure> send(const outgoing_message& msg,
                                                     const gateway::call_context& ctx = {},
                                                     const session_state& session = {},
                                                     const session_origin* origin = nullptr,
                                                     clock::duration within = 5s) {
        auto& ex = units->exchange;
        return run(io,
                   ex.exchange(ex.endpoint(0), msg, session, ctx, clock::now() + within, origin));
    }
};

TEST_F(exchange_test, a_json_answer_is_read_and_its_connection_kept_for_the_next) {
    exchange();
    upstream.on = [](const seen& r) {
        return reply::result(r.id, {{"n", 1}}).with("Mcp-Session-Id", "s7");
    };
    auto first = send(call(1));
    ASSERT_TRUE(std::holds_alternative<http_answer>(first));
    const auto& a = std::get<http_answer>(first);
    EXPECT_EQ(a.status, 200);
    EXPECT_EQ(a.session_id, "s7");
    ASSERT_TRUE(a.message);
    EXPECT_EQ(json::parse(a.message->raw()),
              json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"n":1}})"));
    EXPECT_EQ(units->exchange.endpoint(0).idle.size(), 1u);
    ASSERT_TRUE(std::holds_alternative<http_answer>(send(call(2))));
    EXPECT_EQ(upstream.requests.size(), 2u);
    EXPECT_EQ(upstream.connections,
              1); // the second went on the pooled connection
}

TEST_F(exchange_test, the_upstreams_messages_before_the_answer_go_to_the_calls_observer) {
    exchange();
    upstream.on = [](const seen& r) {
        reply a;
        a.events = std::vector<std::string>{
            R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":0.50}})",
            R"({"jsonrpc":"2.0","id":"q1","method":"sampling/createMessage","params":{}})",
            R"({"jsonrpc":"2.0","id":)" + json::serialize(r.id) + R"(,"result":{"done":true}})"};
        return a;
    };
    gateway::call_context ctx;
    ctx.observer = &call_observer;
    session_origin origin{"b1", nullptr};
    auto r = send(call(5), ctx, {}, &origin);
    ASSERT_TRUE(std::holds_alternative<http_answer>(r));
    ASSERT_TRUE(std::get<http_answer>(r).message);
    EXPECT_EQ(std::get<http_answer>(r).message->body().at("id"), 5);
    ASSERT_EQ(call_observer.heard.size(), 2u);
    EXPECT_EQ(call_observer.heard[0].first, "b1");
    // As the upstream wrote it: 0.50 stays 0.50.
    EXPECT_NE(call_observer.heard[0].second.find("0.50"), std::string::npos);
    EXPECT_TRUE(units->session_wide.heard.empty());
}

TEST_F(exchange_test, without_a_call_observer_they_go_to_the_clients_with_their_session) {
    exchange();
    upstream.on = [](const seen& r) {
        reply a;
        a.events = std::vector<std::string>{
            R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})",
            R"({"jsonrpc":"2.0","id":)" + json::serialize(r.id) + R"(,"result":{}})"};
        return a;
    };
    session_origin origin{"b2", nullptr};
    ASSERT_TRUE(std::holds_alternative<http_answer>(send(call(6), {}, {}, &origin)));
    ASSERT_EQ(units->session_wide.heard.size(), 1u);
    EXPECT_EQ(units->session_wide.heard[0].first, "b2");
}

TEST_F(exchange_test, a_list_change_on_a_calls_stream_is_heard_by_the_call_and_the_client) {
    exchange();
    upstream.on = [](const seen& r) {
        reply a;
        a.events = std::vector<std::string>{
            R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})",
            R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})",
            R"({"jsonrpc":"2.0","id":)" + json::serialize(r.id) + R"(,"result":{}})"};
        return a;
    };
    session_origin origin{"b3", nullptr};
    ASSERT_TRUE(std::holds_alternative<http_answer>(send(call(7), observed(), {}, &origin)));
    // The call's client hears both on its call; the client (its lists of the upstream are
    // stale now) hears the list change alone.
    ASSERT_EQ(call_observer.heard.size(), 2u);
    ASSERT_EQ(units->session_wide.heard.size(), 1u);
    EXPECT_EQ(units->session_wide.heard[0].first, "b3");
    EXPECT_EQ(json::parse(units->session_wide.heard[0].second).at("method"),
              "notifications/tools/list_changed");
}

TEST_F(exchange_test, an_exchange_past_its_deadline_fails_as_timed_out_and_closes_the_connection) {
    exchange();
    upstream.on = [](const seen&) {
        reply a;
        a.hang = true;
        return a;
    };
    auto r = send(call(1), {}, {}, nullptr, 60ms);
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).what, upstream_failure::kind::timeout);
    // The watch closed it: the upstream sees the connection end.
    EXPECT_TRUE(run_until(io, [&] { return upstream.closed_by_client == 1; }));
    EXPECT_EQ(units->exchange.endpoint(0).idle.size(), 0u);
}

TEST_F(exchange_test, a_pooled_connection_found_dead_is_retried_once_on_a_fresh_one) {
    exchange();
    ASSERT_TRUE(std::holds_alternative<http_answer>(send(call(1))));
    upstream.drop_connections(); // the upstream closed it while it was idle
    settle(io);
    auto r = send(call(2));
    ASSERT_TRUE(std::holds_alternative<http_answer>(r));
    EXPECT_EQ(std::get<http_answer>(r).status, 200);
    EXPECT_EQ(upstream.connections, 2);
}

TEST_F(exchange_test, a_fresh_connection_closed_without_an_answer_is_not_retried) {
    exchange();
    upstream.on = [](const seen&) {
        reply a;
        a.close = true;
        return a;
    };
    auto r = send(call(1));
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).what, upstream_failure::kind::connect_error);
    EXPECT_EQ(upstream.requests.size(), 1u);
}

TEST_F(exchange_test, an_endpoint_that_cannot_be_reached_is_a_connect_error) {
    exchange(upstream_at(dead_url()));
    auto r = send(call(1));
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).what, upstream_failure::kind::connect_error);
    EXPECT_TRUE(std::get<upstream_failure>(r).upstream_at_fault);
}

TEST_F(exchange_test, a_header_with_a_control_character_is_never_sent) {
    exchange();
    gateway::call_context ctx;
    ctx.traceparent = "00-abc\r\nX-Injected: 1";
    auto r = send(call(1), ctx);
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).what, upstream_failure::kind::protocol);
    EXPECT_FALSE(std::get<upstream_failure>(r).upstream_at_fault);
    EXPECT_EQ(upstream.connections, 0);
}

TEST_F(exchange_test, a_per_caller_upstreams_401_is_the_callers_business) {
    auto cfg = upstream_at(upstream.url());
    cfg.auth.strategy = "passthrough";
    exchange(cfg);
    upstream.on = [](const seen&) { return reply::status_only(401); };
    session_origin origin{"b", std::make_shared<gateway::caller_credential>(
                                   gateway::caller_credential{"tok", "iss", "alice"})};
    auto r = send(call(1), {}, {}, &origin);
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    const auto& f = std::get<upstream_failure>(r);
    EXPECT_EQ(f.status, 401);
    EXPECT_FALSE(f.upstream_at_fault);
    EXPECT_NE(f.message.find("refused the caller's credential"), std::string::npos);
    EXPECT_EQ(upstream.requests.at(0).head["Authorization"], "Bearer tok");
    // gate's own request (no caller) carries no credential there.
    auto own = send(call(2));
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(own));
    EXPECT_NE(std::get<upstream_failure>(own).message.find("needs a caller's credential"),
              std::string::npos);
    EXPECT_EQ(upstream.requests.at(1).head.count("Authorization"), 0u);
}

TEST_F(exchange_test, elsewhere_a_401_is_an_answer_like_any_other) {
    exchange();
    upstream.on = [](const seen&) { return reply::status_only(401); };
    auto r = send(call(1));
    ASSERT_TRUE(std::holds_alternative<http_answer>(r));
    EXPECT_EQ(std::get<http_answer>(r).status, 401);
}

TEST_F(exchange_test, a_2026_07_28_request_mirrors_its_method_and_name_in_headers) {
    exchange();
    ASSERT_TRUE(std::holds_alternative<http_answer>(
        send(call(1, "echo"), {}, session_state{"", "2026-07-28"})));
    const auto& head = upstream.requests.at(0).head;
    EXPECT_EQ(head["Mcp-Method"], "tools/call");
    EXPECT_EQ(head["Mcp-Name"], "echo");
    EXPECT_EQ(head["MCP-Protocol-Version"], "2026-07-28");
    EXPECT_EQ(head.count("Mcp-Session-Id"), 0u);
    // An earlier revision's session: no mirrors, the session's id.
    ASSERT_TRUE(
        std::holds_alternative<http_answer>(send(call(2), {}, session_state{"s1", "2025-11-25"})));
    EXPECT_EQ(upstream.requests.at(1).head.count("Mcp-Method"), 0u);
    EXPECT_EQ(upstream.requests.at(1).session, "s1");
}

TEST_F(exchange_test, a_session_is_ended_upstream_by_a_delete) {
    auto& ex = exchange();
    run(io, ex.send_delete(ex.endpoint(0), session_state{"s9", "2025-11-25"}, nullptr));
    ASSERT_EQ(upstream.requests.size(), 1u);
    EXPECT_EQ(upstream.requests[0].verb, "DELETE");
    EXPECT_EQ(upstream.requests[0].session, "s9");
}

TEST_F(exchange_test, a_long_lived_stream_hands_on_each_message_that_has_a_method) {
    auto& ex = exchange();
    upstream.on = [](const seen&) {
        reply a;
        a.events = std::vector<std::string>{
            R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})",
            R"({"jsonrpc":"2.0","id":3,"result":{}})"};
        return a;
    };
    auto follow = [&](std::string wire) -> asio::awaitable<std::pair<bool, int>> {
        auto c = co_await ex.connect(ex.endpoint(0));
        auto& conn = std::get<transport::upstream_connection>(c);
        int opened = 0;
        std::vector<std::string> got;
        bool streamed = co_await ex.follow_stream(
            conn, wire, true, [&] { ++opened; }, [] { return true; },
            [&](gateway::upstream_message m) { got.push_back(m.raw()); });
        EXPECT_EQ(got.size(), streamed ? 1u : 0u);
        co_return std::pair{streamed, opened};
    };
    std::string get = "GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n";
    EXPECT_EQ(run(io, follow(get)), (std::pair{true, 1}));
    upstream.on = [](const seen&) { return reply::status_only(405); };
    EXPECT_EQ(run(io, follow(get)), (std::pair{false, 0}));
}

} // namespace
} // namespace gate::test
