// upstream_requests against a scripted upstream on 127.0.0.1: a request goes on
// its session and its answer comes back; after a 404 on a session the session
// is opened again and the request sent once more, never twice more and never
// without a session; an answer that is not a response to the request fails it;
// a 2026-07-28 upstream's input_required is answered by the call's client and
// the call continued; lists are fetched page by page; deliveries need an open
// session.
#include "tests/unit/upstream_rig.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using gateway::call_context;
using gateway::upstream_failure;
using gateway::upstream_message;
using gateway::upstream_reply;

struct requests_test : units_fixture {
    gateway::upstream_requests& requests(config::upstream cfg) {
        return make(std::move(cfg)).requests;
    }
    gateway::upstream_requests& requests() { return make().requests; }
    upstream_reply call(const call_context& ctx = {}, json::object params = {{"name", "echo"}}) {
        return run(io, units->requests.send("tools/call", std::move(params), ctx));
    }
    config::upstream modern() {
        auto cfg = upstream_at(upstream.url());
        cfg.protocol = config::protocol_mode::v2026_07_28;
        return cfg;
    }
    // A 2026-07-28 upstream: discover offers the era; calls answered by `on_call`.
    void serve_modern(std::function<reply(const seen&)> on_call) {
        upstream.on = [on_call](const seen& r) {
            if (r.method == "server/discover")
                return reply::result(r.id, {{"supportedVersions", {"2026-07-28"}},
                                            {"capabilities", {{"tools", json::object{}}}}});
            return on_call(r);
        };
    }
};

TEST_F(requests_test, a_request_goes_on_its_session_under_the_id_the_observer_hears) {
    requests();
    auto r = call(observed());
    ASSERT_TRUE(std::holds_alternative<upstream_message>(r));
    ASSERT_EQ(call_observer.sent_ids.size(), 1u);
    EXPECT_EQ(std::get<upstream_message>(r).body().at("id"), call_observer.sent_ids[0]);
    const auto& sent = upstream.requests.back();
    EXPECT_EQ(sent.method, "tools/call");
    EXPECT_EQ(sent.session, "s1");
    EXPECT_EQ(sent.id, call_observer.sent_ids[0]);
}

TEST_F(requests_test, after_a_404_on_its_session_the_request_is_sent_once_more_on_a_new_one) {
    requests();
    EXPECT_TRUE(std::holds_alternative<upstream_message>(call()));
    upstream.on = [&](const seen& r) {
        if (r.method == "tools/call" && r.session == "s1")
            return reply::status_only(404); // the upstream restarted and forgot s1
        return upstream.mcp(r);
    };
    auto r = call(observed());
    ASSERT_TRUE(std::holds_alternative<upstream_message>(r))
        << std::get<upstream_failure>(r).message;
    EXPECT_EQ(upstream.count("initialize"), 2u);
    EXPECT_EQ(upstream.count("tools/call"), 3u);
    EXPECT_EQ(upstream.requests.back().session, "s2");
    // Told again, under the new id.
    ASSERT_EQ(call_observer.sent_ids.size(), 2u);
    EXPECT_NE(call_observer.sent_ids[0], call_observer.sent_ids[1]);
}

TEST_F(requests_test, a_second_404_fails_the_request_instead_of_a_third_try) {
    requests();
    upstream.on = [&](const seen& r) {
        if (r.method == "tools/call")
            return reply::status_only(404);
        return upstream.mcp(r);
    };
    auto r = call();
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).status, 404);
    EXPECT_NE(std::get<upstream_failure>(r).message.find("HTTP 404"), std::string::npos);
    EXPECT_NE(std::get<upstream_failure>(r).message.find("lost the session twice"),
              std::string::npos);
    EXPECT_EQ(upstream.count("tools/call"), 2u);
    EXPECT_EQ(upstream.count("initialize"), 2u);
}

TEST_F(requests_test, a_404_without_a_session_is_the_answer_and_never_sent_again) {
    requests(modern());
    serve_modern([](const seen&) { return reply::status_only(404); });
    auto r = call();
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).status, 404);
    EXPECT_EQ(upstream.count("tools/call"), 1u);
    EXPECT_EQ(upstream.count("server/discover"), 1u);
}

TEST_F(requests_test, an_answer_that_is_not_a_response_to_the_request_fails_it) {
    requests();
    upstream.on = [&](const seen& r) {
        if (r.method == "tools/call")
            return reply::result(json::value("someone else's"), json::object{});
        return upstream.mcp(r);
    };
    auto r = call();
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_EQ(std::get<upstream_failure>(r).what, upstream_failure::kind::http_status);
    EXPECT_NE(std::get<upstream_failure>(r).message.find("not a JSON-RPC response"),
              std::string::npos);
}

TEST_F(requests_test, input_required_is_answered_by_the_client_and_the_call_continued) {
    requests(modern());
    serve_modern([](const seen& r) {
        auto params = json::parse(r.body).at("params").as_object();
        if (!params.contains("inputResponses"))
            return reply::json(
                R"({"jsonrpc":"2.0","id":)" + json::serialize(r.id) +
                R"(,"result":{"resultType":"input_required","inputRequests":{"q":)"
                R"({"method":"elicitation/create","params":{"n":1.50}}},"requestState":"opaque-7"}})");
        return reply::result(r.id, {{"resultType", "complete"},
                                    {"got", params.at("inputResponses")},
                                    {"state", params.at("requestState")}});
    });
    call_observer.asks = true;
    call_observer.answer = protocol::sourced_object{json::object{{"action", "accept"}}, ""};
    auto r = call(observed());
    ASSERT_TRUE(std::holds_alternative<upstream_message>(r))
        << std::get<upstream_failure>(r).message;
    const auto& result = std::get<upstream_message>(r).body().at("result");
    EXPECT_EQ(result.at("got"), json::parse(R"({"q":{"action":"accept"}})"));
    EXPECT_EQ(result.at("state"), "opaque-7");
    ASSERT_EQ(call_observer.asked.size(), 1u);
    EXPECT_EQ(call_observer.asked[0].value.at("method"), "elicitation/create");
    EXPECT_NE(call_observer.asked[0].source.find("1.50"),
              std::string::npos); // as written
    EXPECT_EQ(upstream.count("tools/call"), 2u);
}

TEST_F(requests_test, input_required_without_a_client_to_ask_is_the_answer) {
    requests(modern());
    serve_modern([](const seen& r) {
        return reply::result(r.id,
                             {{"resultType", "input_required"}, {"inputRequests", json::object{}}});
    });
    auto r = call(observed()); // its observer asks no client
    ASSERT_TRUE(std::holds_alternative<upstream_message>(r));
    EXPECT_EQ(std::get<upstream_message>(r).body().at("result").at("resultType"), "input_required");
    EXPECT_EQ(upstream.count("tools/call"), 1u);
}

TEST_F(requests_test, a_client_that_gives_no_input_fails_the_call_not_the_upstream) {
    requests(modern());
    serve_modern([](const seen& r) {
        return reply::result(r.id, {{"resultType", "input_required"},
                                    {"inputRequests", {{"q", {{"method", "roots/list"}}}}}});
    });
    call_observer.asks = true; // and answers nothing
    auto r = call(observed());
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(r));
    EXPECT_FALSE(std::get<upstream_failure>(r).upstream_at_fault);
    EXPECT_EQ(upstream.count("tools/call"), 1u);
}

TEST_F(requests_test, a_list_is_fetched_page_by_page_with_each_items_text) {
    auto& rq = requests();
    upstream.on = [&](const seen& r) {
        if (r.method != "tools/list")
            return upstream.mcp(r);
        auto body = json::parse(r.body);
        auto* params = body.as_object().if_contains("params");
        bool second = params && params->as_object().contains("cursor");
        if (!second)
            return reply::json(R"({"jsonrpc":"2.0","id":)" + json::serialize(r.id) +
                               R"(,"result":{"tools":[{"name":"a","n":1.50}],"nextCursor":"p2"}})");
        return reply::json(R"({"jsonrpc":"2.0","id":)" + json::serialize(r.id) +
                           R"(,"result":{"tools":[{"name":"b"}]}})");
    };
    std::vector<std::string> texts;
    auto r = run(io, rq.fetch_list("tools/list", "tools", {},
                                   gateway::upstream_guards::ticket(units->guards), &texts));
    ASSERT_TRUE(std::holds_alternative<json::array>(r));
    EXPECT_EQ(std::get<json::array>(r), json::parse(R"([{"name":"a","n":1.5},{"name":"b"}])"));
    EXPECT_EQ(texts, (std::vector<std::string>{R"({"name":"a","n":1.50})", R"({"name":"b"})"}));
    EXPECT_EQ(upstream.count("tools/list"), 2u);
}

TEST_F(requests_test, an_upstream_without_the_capability_lists_nothing) {
    auto& rq = requests();
    upstream.on = [&](const seen& r) {
        if (r.method == "prompts/list")
            return reply::json(json::serialize(
                json::object{{"jsonrpc", "2.0"},
                             {"id", r.id},
                             {"error", {{"code", -32601}, {"message", "no prompts"}}}}));
        return upstream.mcp(r);
    };
    auto r = run(io, rq.fetch_list("prompts/list", "prompts", {},
                                   gateway::upstream_guards::ticket(units->guards), nullptr));
    ASSERT_TRUE(std::holds_alternative<json::array>(r));
    EXPECT_TRUE(std::get<json::array>(r).empty());
}

TEST_F(requests_test, a_delivery_needs_an_open_session) {
    auto& rq = requests();
    json::object note{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}};
    EXPECT_FALSE(run(io, rq.deliver("", note, "")));       // the root session is not open yet
    EXPECT_FALSE(run(io, rq.deliver("nobody", note, ""))); // no such bridged session
    EXPECT_TRUE(upstream.requests.empty());
    EXPECT_TRUE(std::holds_alternative<upstream_message>(call()));
    EXPECT_TRUE(run(io, rq.deliver("", note, "")));
    EXPECT_EQ(upstream.requests.back().method, "notifications/cancelled");
    EXPECT_EQ(upstream.requests.back().session, "s1");
}

TEST_F(requests_test, a_log_level_is_sent_to_an_open_session_and_at_the_next_handshake) {
    auto& rq = requests();
    call_context ctx;
    ctx.bridge = "b1";
    json::object caps;
    run(io, rq.set_log_level("b1", "debug",
                             caps)); // not open: kept for its handshake
    EXPECT_EQ(upstream.count("logging/setLevel"), 0u);
    EXPECT_TRUE(std::holds_alternative<upstream_message>(call(ctx)));
    EXPECT_EQ(upstream.count("logging/setLevel"), 1u);
    run(io, rq.set_log_level("b1", "error", caps)); // open: sent now
    EXPECT_EQ(upstream.count("logging/setLevel"), 2u);
    EXPECT_NE(upstream.requests.back().body.find("\"error\""), std::string::npos);
}

} // namespace
} // namespace gate::test
