// The entry's steps (gateway/pipeline/entry_steps.hpp) over fake services: read (415, 406, a
// body that is not JSON, not one JSON-RPC message, and what a readable message leaves for the
// handler), session (missing, unknown here or in the fleet, gone, an unsupported revision, and
// the session held in use), trace, and a 2026-07-28 request's envelope. Each refusal is the error
// table's row, as the client receives it.
#include "actors/federation/snapshot.hpp"
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/entry_steps.hpp"
#include "tests/unit/fake_chain.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace gate::gateway::pipeline {
namespace {

namespace json = boost::json;
using fakes::settle;

class counting_tap final : public message_tap {
public:
    explicit counting_tap(int& heard) : heard_(heard) {}
    void hear(const transport::http_request&, request_context&) override { ++heard_; }

private:
    int& heard_;
};

transport::http_request post(std::string body, std::string content_type = "application/json",
                             std::string accept = "application/json, text/event-stream") {
    transport::http_request req;
    if (!content_type.empty())
        req.set("Content-Type", content_type);
    if (!accept.empty())
        req.set("Accept", accept);
    req.body() = std::move(body);
    return req;
}

struct read_result {
    verdict v;
    int heard = 0;
};

read_result read_it(request_context& ctx, arrival& a) {
    read_result r{};
    counting_tap tap(r.heard);
    auto step = make_read(&tap);
    r.v = settle(step->run(ctx, a));
    return r;
}

json::object body_of(const transport::http_reply& r) {
    return json::parse(r.body).as_object();
}

TEST(read_step, a_body_that_is_not_json_by_its_type_is_415) {
    for (std::string type : {"", "text/plain"}) {
        auto req = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", type);
        request_context ctx;
        arrival a{door::message, req};
        auto r = read_it(ctx, a);
        EXPECT_EQ(r.v, verdict::answered);
        ASSERT_TRUE(ctx.answer.refusal_reply);
        EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 415);
        EXPECT_EQ(ctx.answer.refusal_reply->body,
                  error_reply({gateway_error::unsupported_media_type,
                               protocol::gateway_error_text(gateway_error::unsupported_media_type)})
                      .body);
        EXPECT_TRUE(ctx.answer.rejection); // an HTTP refusal, audited as `http`
        EXPECT_FALSE(a.msg);
        EXPECT_EQ(r.heard, 0);
    }
}

TEST(read_step, a_client_that_does_not_accept_json_is_406) {
    auto req = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "application/json",
                    "text/event-stream");
    request_context ctx;
    arrival a{door::message, req};
    auto r = read_it(ctx, a);
    EXPECT_EQ(r.v, verdict::answered);
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 406);
    EXPECT_TRUE(ctx.answer.rejection);
    EXPECT_EQ(r.heard, 0);
}

TEST(read_step, a_body_that_is_not_json_is_a_parse_error_audited_as_http) {
    auto req = post("{not json");
    request_context ctx;
    arrival a{door::message, req};
    auto r = read_it(ctx, a);
    EXPECT_EQ(r.v, verdict::answered);
    EXPECT_EQ(ctx.method, "http");
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 400);
    auto b = body_of(*ctx.answer.refusal_reply);
    EXPECT_EQ(b.at("error").at("code"), -32700);
    EXPECT_EQ(b.at("id"), nullptr);
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::error);
    EXPECT_EQ(r.heard, 0); // only JSON is recorded
}

TEST(read_step, json_that_is_not_one_json_rpc_message_is_an_invalid_request) {
    auto req = post(R"({"jsonrpc":"1.0","id":3,"method":"ping"})");
    request_context ctx;
    arrival a{door::message, req};
    auto r = read_it(ctx, a);
    EXPECT_EQ(r.v, verdict::answered);
    EXPECT_EQ(ctx.method, "http");
    EXPECT_EQ(ctx.message.id, 3);
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 400);
    auto b = body_of(*ctx.answer.refusal_reply);
    EXPECT_EQ(b.at("error").at("code"), -32600);
    EXPECT_EQ(b.at("id"), 3);
    EXPECT_EQ(r.heard, 1); // it was JSON
    EXPECT_FALSE(a.msg);
}

TEST(read_step, a_request_is_left_for_the_handler_with_the_text_of_its_params) {
    auto req = post(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"n":1.50}})");
    request_context ctx;
    arrival a{door::message, req};
    auto r = read_it(ctx, a);
    EXPECT_EQ(r.v, verdict::proceed);
    ASSERT_TRUE(a.msg);
    EXPECT_TRUE(a.is_request());
    EXPECT_EQ(a.msg->method, "tools/call");
    EXPECT_EQ(ctx.method, "tools/call");
    EXPECT_EQ(ctx.message.id, 7);
    EXPECT_EQ(ctx.message.params_source, R"({"n":1.50}})");
    EXPECT_FALSE(a.modern);
    EXPECT_TRUE(a.sessionful());
    EXPECT_FALSE(ctx.answer.refusal_reply);
    EXPECT_EQ(r.heard, 1);
}

TEST(read_step, a_notification_and_a_clients_answer_carry_no_params_text) {
    auto note = post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}})");
    request_context ctx;
    arrival a{door::message, note};
    EXPECT_EQ(read_it(ctx, a).v, verdict::proceed);
    EXPECT_EQ(ctx.method, "notifications/cancelled");
    EXPECT_TRUE(ctx.message.params_source.empty());

    auto answer = post(R"({"jsonrpc":"2.0","id":"g-1","result":{}})");
    request_context ctx2;
    arrival b{door::message, answer};
    EXPECT_EQ(read_it(ctx2, b).v, verdict::proceed);
    EXPECT_EQ(ctx2.method, "response");
    EXPECT_EQ(ctx2.message.id, "g-1");
    EXPECT_FALSE(b.is_request());
}

TEST(read_step, a_2026_07_28_request_by_header_or_by_meta_has_no_session) {
    auto by_header = post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    by_header.set("MCP-Protocol-Version", "2026-07-28");
    request_context c1;
    arrival a1{door::message, by_header};
    read_it(c1, a1);
    EXPECT_TRUE(a1.modern);
    EXPECT_FALSE(a1.sessionful());

    auto by_meta = post(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
    request_context c2;
    arrival a2{door::message, by_meta};
    read_it(c2, a2);
    EXPECT_TRUE(a2.modern);

    // An initialize claiming it is still an initialize (it opens a session).
    auto init = post(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
    request_context c3;
    arrival a3{door::message, init};
    read_it(c3, a3);
    EXPECT_FALSE(a3.modern);
    EXPECT_FALSE(a3.sessionful());
}

// Sessions by id: whether each is known at once, only through the fleet, or gone by the time
// it is used. Counts what was asked.
class fake_sessions final : public session_directory {
public:
    struct entry {
        std::optional<bool> now; // nullopt: only the fleet can tell
        bool in_fleet = false;
        bool usable = true;
    };
    std::map<std::string, entry> table;
    std::shared_ptr<std::size_t> calls = std::make_shared<std::size_t>(0);
    int fleet_asks = 0, uses = 0;
    policy::caller_ref asked_for;
    boost::asio::ip::address asked_from;

    session_use use_now(const std::string& id, const policy::caller_ref&) override {
        auto it = table.find(id);
        if (it == table.end() || it->second.now == false)
            return {};
        if (!it->second.now)
            return {session_found::ask_store, {}};
        ++uses;
        return {session_found::held, session_call(calls)};
    }
    boost::asio::awaitable<bool> known(const std::string& id, const policy::caller_ref& caller,
                                       const boost::asio::ip::address& peer) override {
        ++fleet_asks;
        asked_for = caller;
        asked_from = peer;
        co_return table.at(id).in_fleet;
    }
    std::optional<session_call> use(const std::string& id) override {
        ++uses;
        if (!table.at(id).usable)
            return std::nullopt;
        return session_call(calls);
    }
};

struct session_run {
    verdict v;
    bool ready;
    std::unique_ptr<fake_sessions> sessions; // what the test reads after the run
    std::unique_ptr<entry_step> step;        // holds the sessions, and goes first
};

session_run check(fake_sessions*& seen, request_context& ctx, arrival& a,
                  std::function<void(fake_sessions&)> setup = {}) {
    auto owned = std::make_unique<fake_sessions>();
    seen = owned.get();
    if (setup)
        setup(*owned);
    auto& sessions = *owned;
    session_run r{verdict::proceed, false, std::move(owned), make_session(sessions)};
    r.v = settle(r.step->run(ctx, a), &r.ready);
    return r;
}

transport::http_request with_session(std::string id, std::string version = "") {
    transport::http_request req;
    if (!id.empty())
        req.set("Mcp-Session-Id", id);
    if (!version.empty())
        req.set("MCP-Protocol-Version", version);
    return req;
}

arrival message(const transport::http_request& req, protocol::message_kind kind,
                std::string method) {
    arrival a{door::message, req};
    a.msg = protocol::message{kind, {}, std::move(method), 1};
    return a;
}

std::string message_of(const request_context& ctx) {
    return std::string(body_of(*ctx.answer.refusal_reply).at("error").at("message").as_string());
}

int status_of(const request_context& ctx) {
    return ctx.answer.refusal_reply ? static_cast<int>(ctx.answer.refusal_reply->status) : 0;
}

TEST(session_step, a_message_without_a_session_is_400_under_its_method) {
    auto req = with_session("");
    for (auto kind : {protocol::message_kind::request, protocol::message_kind::response}) {
        request_context ctx;
        auto a = message(req, kind, kind == protocol::message_kind::request ? "tools/list" : "");
        fake_sessions* s = nullptr;
        auto r = check(s, ctx, a);
        EXPECT_EQ(r.v, verdict::answered);
        ASSERT_EQ(status_of(ctx), 400);
        EXPECT_EQ(message_of(ctx), protocol::gateway_error_text(gateway_error::session_required));
        // A client's answer has no method: audited as `http`.
        EXPECT_EQ(ctx.method, kind == protocol::message_kind::request ? "tools/list" : "http");
        EXPECT_EQ(s->uses, 0);
    }
}

TEST(session_step, an_unknown_session_or_another_principals_is_404) {
    auto req = with_session("s-1");
    request_context ctx;
    auto a = message(req, protocol::message_kind::request, "tools/list");
    fake_sessions* s = nullptr;
    auto r = check(s, ctx, a, [](fake_sessions& f) { f.table["s-1"] = {false}; });
    EXPECT_EQ(r.v, verdict::answered);
    EXPECT_TRUE(r.ready); // decided without the fleet
    ASSERT_EQ(status_of(ctx), 404);
    EXPECT_EQ(message_of(ctx), protocol::gateway_error_text(gateway_error::session_unknown));
    EXPECT_EQ(s->fleet_asks, 0);
    EXPECT_EQ(s->uses, 0);
}

TEST(session_step, a_session_only_the_fleet_knows_is_asked_for_and_used) {
    auto req = with_session("s-2");
    request_context ctx;
    ctx.who.caller = std::make_shared<const principal>();
    ctx.admission.peer = boost::asio::ip::make_address("10.0.0.7");
    auto a = message(req, protocol::message_kind::request, "tools/list");
    fake_sessions* s = nullptr;
    auto r = check(s, ctx, a, [](fake_sessions& f) { f.table["s-2"] = {std::nullopt, true}; });
    EXPECT_EQ(r.v, verdict::proceed);
    EXPECT_FALSE(r.ready);
    EXPECT_EQ(s->fleet_asks, 1);
    EXPECT_EQ(s->asked_for, ctx.who.caller);
    EXPECT_EQ(s->asked_from, ctx.admission.peer);
    EXPECT_EQ(a.session, "s-2");
    EXPECT_EQ(*s->calls, 1u); // held in use by the arrival
}

TEST(session_step, a_session_the_fleet_does_not_know_or_that_ended_meanwhile_is_404) {
    for (bool in_fleet : {false, true}) {
        auto req = with_session("s-3");
        request_context ctx;
        auto a = message(req, protocol::message_kind::notification, "notifications/initialized");
        fake_sessions* s = nullptr;
        auto r = check(s, ctx, a, [&](fake_sessions& f) {
            f.table["s-3"] = {std::nullopt, in_fleet, /*usable=*/false};
        });
        EXPECT_EQ(r.v, verdict::answered);
        ASSERT_EQ(status_of(ctx), 404);
        EXPECT_EQ(ctx.method, "notifications/initialized");
        EXPECT_EQ(s->uses, in_fleet ? 1 : 0);
        EXPECT_EQ(*s->calls, 0u);
    }
}

TEST(session_step, an_unsupported_protocol_revision_is_400_and_names_it) {
    auto req = with_session("s-4", "1999-01-01");
    request_context ctx;
    auto a = message(req, protocol::message_kind::request, "tools/list");
    fake_sessions* s = nullptr;
    auto r = check(s, ctx, a, [](fake_sessions& f) { f.table["s-4"] = {true}; });
    EXPECT_EQ(r.v, verdict::answered);
    ASSERT_EQ(status_of(ctx), 400);
    EXPECT_EQ(message_of(ctx),
              protocol::gateway_error_text(gateway_error::unsupported_version, {"1999-01-01"}));
    EXPECT_EQ(s->uses, 1); // marked used before the revision was read, as always
}

TEST(session_step, a_known_session_goes_on_held_in_use_until_the_message_is_answered) {
    auto req = with_session("s-5", "2025-06-18");
    fake_sessions* s = nullptr;
    std::shared_ptr<std::size_t> calls;
    {
        request_context ctx;
        auto a = message(req, protocol::message_kind::request, "tools/call");
        auto r = check(s, ctx, a, [](fake_sessions& f) { f.table["s-5"] = {true}; });
        EXPECT_EQ(r.v, verdict::proceed);
        EXPECT_TRUE(r.ready);
        EXPECT_FALSE(ctx.answer.refusal_reply);
        EXPECT_EQ(a.session, "s-5");
        calls = s->calls;
        EXPECT_EQ(*calls, 1u);
    }
    EXPECT_EQ(*calls, 0u); // the arrival is gone: the session is idle again
}

std::shared_ptr<const federation_view> view_with(std::optional<config::tracing> tracing) {
    auto doc = std::make_shared<config::document>();
    doc->tracing = std::move(tracing);
    auto view = std::make_shared<federation_view>();
    view->snap = actors::make_snapshot(doc, 1);
    return view;
}

TEST(trace_step, continues_the_callers_trace_and_records_spans_when_tracing) {
    transport::http_request req;
    req.set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    arrival a{door::message, req};
    request_context ctx;
    ctx.view = view_with(config::tracing{"http://127.0.0.1:1/v1/traces", "gate", 1.0});
    EXPECT_EQ(settle(make_trace()->run(ctx, a)), verdict::proceed);
    EXPECT_TRUE(ctx.tracing.traceparent.starts_with("00-0af7651916cd43dd8448eb211c80319c-"));
    ASSERT_TRUE(ctx.tracing.spans);
    EXPECT_EQ(ctx.tracing.spans->parent_span_id, "b7ad6b7169203331");

    // No tracing section: the trace propagates, nothing is recorded.
    request_context plain;
    plain.view = view_with(std::nullopt);
    EXPECT_EQ(settle(make_trace()->run(plain, a)), verdict::proceed);
    EXPECT_TRUE(plain.tracing.traceparent.starts_with("00-0af7651916cd43dd8448eb211c80319c-"));
    EXPECT_FALSE(plain.tracing.spans);
}

// A 2026-07-28 request as the read step leaves it: `params` (its envelope in `_meta`) and the
// headers that mirror it.
struct modern_request {
    transport::http_request req;
    std::unique_ptr<arrival> a;
    request_context ctx;

    modern_request(std::string method, std::string params, std::string version = "2026-07-28",
                   std::string header_method = "") {
        req.set("MCP-Protocol-Version", version);
        req.set("Mcp-Method", header_method.empty() ? method : header_method);
        a = std::make_unique<arrival>(door::message, req);
        a->modern = true;
        json::object body{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}};
        body["params"] = json::parse(params);
        a->msg = protocol::message{protocol::message_kind::request, std::move(body), method, 1};
        ctx.method = method;
    }
    verdict check() { return settle(make_envelope()->run(ctx, *a)); }
    json::object answer() const { return body_of(*ctx.answer.refusal_reply); }
};

std::string envelope(std::string version = "2026-07-28") {
    return R"({"_meta":{"io.modelcontextprotocol/protocolVersion":")" + version +
           R"(","io.modelcontextprotocol/clientCapabilities":{}}})";
}

TEST(envelope_step, a_request_with_its_envelope_and_matching_headers_goes_on) {
    modern_request m("tools/list", envelope());
    EXPECT_EQ(m.check(), verdict::proceed);
    EXPECT_FALSE(m.ctx.answer.refusal_reply);
}

TEST(envelope_step, headers_that_do_not_mirror_the_body_are_400_in_the_clients_codes) {
    modern_request m("tools/list", envelope(), "2026-07-28", "prompts/list");
    EXPECT_EQ(m.check(), verdict::answered);
    ASSERT_EQ(status_of(m.ctx), 400);
    EXPECT_EQ(m.answer().at("error").at("code"), -32020);
    EXPECT_EQ(m.ctx.method, "tools/list"); // audited under its method
}

TEST(envelope_step, an_unsupported_revision_names_the_revisions_a_stateless_request_may_use) {
    modern_request m("tools/list", envelope("2030-01-01"), "2030-01-01");
    EXPECT_EQ(m.check(), verdict::answered);
    ASSERT_EQ(status_of(m.ctx), 400);
    auto error = m.answer().at("error").as_object();
    EXPECT_EQ(error.at("code"), -32022);
    EXPECT_EQ(error.at("data").at("requested"), "2030-01-01");
    // As server/discover lists them; earlier revisions are negotiated by initialize, which the
    // message says.
    EXPECT_EQ(error.at("data").at("supported"), json::array{"2026-07-28"});
    EXPECT_NE(std::string(error.at("message").as_string()).find("after initialize"),
              std::string::npos);
}

TEST(envelope_step, a_method_the_revision_removed_is_404) {
    for (std::string method : {"initialize", "ping", "logging/setLevel", "resources/subscribe",
                               "resources/unsubscribe"}) {
        modern_request m(method, envelope());
        EXPECT_EQ(m.check(), verdict::answered) << method;
        ASSERT_EQ(status_of(m.ctx), 404) << method;
        EXPECT_EQ(m.answer().at("error").at("code"), -32601);
    }
}

// A federation of upstreams with namespaces, or one upstream without (passthrough).
std::shared_ptr<const federation_view> view_of(std::vector<std::optional<std::string>> spaces) {
    auto doc = std::make_shared<config::document>();
    for (std::size_t i = 0; i < spaces.size(); ++i) {
        config::upstream u;
        u.id = "up-" + std::to_string(i);
        u.urls = {"http://127.0.0.1:1/mcp"};
        u.namespace_ = spaces[i];
        doc->upstreams.push_back(u);
    }
    auto view = std::make_shared<federation_view>();
    view->snap = actors::make_snapshot(doc, 1);
    return view;
}

TEST(envelope_step, a_method_the_revision_does_not_have_is_404_in_a_federation) {
    // The tasks extension has no tasks/result or tasks/list (SEP-2663).
    for (std::string method :
         {"foo/bar", "tools/frobnicate", "sampling/createMessage", "tasks/result", "tasks/list"}) {
        modern_request m(method, envelope());
        m.ctx.view = view_of({"a", "b"});
        EXPECT_EQ(m.check(), verdict::answered) << method;
        ASSERT_EQ(status_of(m.ctx), 404) << method;
        EXPECT_EQ(m.answer().at("error").at("code"), -32601);
        EXPECT_EQ(m.answer().at("error").at("message").as_string(),
                  "method not found: " + method + " does not exist in 2026-07-28");
    }
    for (std::string method :
         {"tools/list", "resources/templates/list", "subscriptions/listen", "server/discover"}) {
        modern_request m(method, envelope());
        m.ctx.view = view_of({"a", "b"});
        EXPECT_EQ(m.check(), verdict::proceed) << method;
    }
}

TEST(envelope_step, a_task_method_without_the_tasks_extension_declared_is_32021) {
    const std::string undeclared =
        R"({"taskId":"t1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
        R"("io.modelcontextprotocol/clientCapabilities":{}}})";
    for (std::string method : {"tasks/get", "tasks/update", "tasks/cancel"}) {
        modern_request m(method, undeclared);
        m.req.set("Mcp-Name", "t1");
        m.ctx.view = view_of({"a", "b"});
        EXPECT_EQ(m.check(), verdict::answered) << method;
        ASSERT_EQ(status_of(m.ctx), 400) << method;
        auto error = m.answer().at("error").as_object();
        EXPECT_EQ(error.at("code"), -32021);
        EXPECT_EQ(error.at("data"),
                  json::parse(R"({"requiredCapabilities":)"
                              R"({"extensions":{"io.modelcontextprotocol/tasks":{}}}})"));
        EXPECT_NE(std::string(error.at("message").as_string()).find(method), std::string::npos);
    }
    // A listen for task news too; one for list changes needs nothing.
    const std::string listen_tasks =
        R"({"notifications":{"taskIds":["t1"]},"_meta":{"io.modelcontextprotocol/protocolVersion":)"
        R"("2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}})";
    modern_request listen("subscriptions/listen", listen_tasks);
    listen.ctx.view = view_of({"a", "b"});
    EXPECT_EQ(listen.check(), verdict::answered);
    EXPECT_EQ(listen.answer().at("error").at("code"), -32021);
    const std::string declared =
        R"({"taskId":"t1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
        R"("io.modelcontextprotocol/clientCapabilities":{"extensions":)"
        R"({"io.modelcontextprotocol/tasks":{}}}}})";
    modern_request ok("tasks/get", declared);
    ok.req.set("Mcp-Name", "t1");
    ok.ctx.view = view_of({"a", "b"});
    EXPECT_EQ(ok.check(), verdict::proceed);
}

TEST(envelope_step, passthrough_leaves_an_unknown_method_to_the_policy_and_the_upstream) {
    modern_request m("vendor/custom", envelope());
    m.ctx.view = view_of({std::nullopt});
    EXPECT_EQ(m.check(), verdict::proceed);
    EXPECT_FALSE(m.ctx.answer.refusal_reply);
}

} // namespace
} // namespace gate::gateway::pipeline
