// The real gateway in-process (io thread, actor system, upstream client) in front of a
// minimal MCP server: pins the order of the nine stages on real requests and the single exit
// door (exactly one finished record per terminal response).
#include "actors/bridging/bridge_keeper.hpp"
#include "actors/federation/router.hpp"
#include "actors/federation/task_keeper.hpp"
#include "actors/message_types.hpp"
#include "actors/sinks/audit.hpp"
#include "gateway/program/gateway.hpp"
#include "tests/support/mini_mcp_server.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <caf/all.hpp>
#include <future>
#include <gtest/gtest.h>
#include <mutex>
#include <thread>

using namespace gate;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;

namespace {

struct gateway_fixture : ::testing::Test {
    asio::io_context io{1};
    caf::actor_system_config cfg;
    std::optional<caf::actor_system> sys;
    tcp::acceptor upstream_acceptor{io, {asio::ip::make_address("127.0.0.1"), 0}};
    std::optional<gateway::program::gateway> gw;
    gate::actors::supervisor_actor
        supervisor; // its actors' timers keep them alive: ended in TearDown
    std::uint16_t port = 0;
    std::thread io_thread;
    std::mutex mutex;
    std::vector<gateway::request_context> records;
    std::vector<test_support::seen_request> upstream_seen;

    void SetUp() override {
        cfg.set("logger.verbosity", caf::atom("quiet"));
        actors::add_message_types(cfg);
        sys.emplace(cfg);
        auto doc = std::make_shared<config::document>();
        config::upstream u;
        u.id = "mini";
        u.urls = {"http://127.0.0.1:" + std::to_string(upstream_acceptor.local_endpoint().port()) +
                  "/mcp"};
        u.namespace_ = "m";
        config::upstream v = u;
        v.id = "mini2";
        v.namespace_ = "n";
        doc->upstreams = {u, v};
        auto snap = gate::actors::make_snapshot(doc, 1);
        actors::supervised what;
        what.snap = snap;
        what.retire = [this](std::vector<gate::actors::retired_bridge> gone) {
            asio::post(io, [this, gone = std::move(gone)]() mutable {
                gw->retire_bridges(std::move(gone));
            });
        };
        auto directory = std::make_shared<gate::actors::actor_directory>();
        supervisor = spawn_supervisor(*sys, std::move(what), directory);
        gw.emplace(io, gateway::program::gateway_parts{directory,
                                                       snap,
                                                       supervisor,
                                                       false,
                                                       {},
                                                       {},
                                                       {},
                                                       {},
                                                       {},
                                                       {},
                                                       {},
                                                       {},
                                                       {},
                                                       {},
                                                       {},
                                                       {}});
        gw->on_request = [this](const gateway::request_context& r) {
            std::lock_guard lock(mutex);
            records.push_back(r);
        };
        port = gw->listen("127.0.0.1", 0);
        asio::co_spawn(io,
                       test_support::serve_mini_mcp(upstream_acceptor,
                                                    [this](const test_support::seen_request& r) {
                                                        std::lock_guard lock(mutex);
                                                        upstream_seen.push_back(r);
                                                    }),
                       asio::detached);
        io_thread = std::thread([this] { io.run(); });
    }
    void TearDown() override {
        gw->stop();
        io.stop();
        io_thread.join();
        caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
    }

    // One synchronous exchange on a fresh connection.
    std::pair<int, json::value> post(const std::string& body, const std::string& session,
                                     std::string* session_out = nullptr,
                                     const std::string& traceparent = {}) {
        asio::io_context client_io;
        beast::tcp_stream s(client_io);
        s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        http::request<http::string_body> req{http::verb::post, "/mcp", 11};
        req.set(http::field::host, "localhost");
        req.set(http::field::content_type, "application/json");
        req.set(http::field::accept, "application/json, text/event-stream");
        if (!session.empty())
            req.set("Mcp-Session-Id", session);
        if (!traceparent.empty())
            req.set("traceparent", traceparent);
        req.body() = body;
        req.prepare_payload();
        http::write(s, req);
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        http::read(s, buf, res);
        if (session_out)
            *session_out = std::string(res["Mcp-Session-Id"]);
        return {res.result_int(), res.body().empty() ? json::value() : json::parse(res.body())};
    }

    // A bodiless request (DELETE) on a fresh connection; its status.
    int send(http::verb verb, const std::string& session) {
        asio::io_context client_io;
        beast::tcp_stream s(client_io);
        s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        http::request<http::empty_body> req{verb, "/mcp", 11};
        req.set(http::field::host, "localhost");
        req.set("Mcp-Session-Id", session);
        http::write(s, req);
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        http::read(s, buf, res);
        return res.result_int();
    }

    std::string initialize() {
        std::string session;
        auto [status, body] = post(
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
            "", &session);
        EXPECT_EQ(status, 200);
        EXPECT_FALSE(session.empty());
        return session;
    }
};

std::vector<std::string_view> names(const gateway::stage_trace& t) {
    std::vector<std::string_view> out;
    for (std::size_t i = 0; i < t.count; ++i)
        out.push_back(gateway::stage_name(t.passed[i]));
    return out;
}

std::vector<std::string_view> all_stages() {
    std::vector<std::string_view> out;
    for (auto s : gateway::pipeline_order)
        out.push_back(gateway::stage_name(s));
    return out;
}

} // namespace

TEST_F(gateway_fixture, a_named_call_passes_all_nine_stages_in_order) {
    auto session = initialize();
    auto [status, body] = post(
        R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"n__echo","arguments":{"message":"hi"}}})",
        session);
    EXPECT_EQ(status, 200);
    EXPECT_EQ(body.at("id"), "c1");
    EXPECT_EQ(body.at("result").at("content").at(0).at("text"), "Echo: hi");
    std::lock_guard lock(mutex);
    ASSERT_EQ(records.size(), 2u); // initialize and the call: one record each
    EXPECT_EQ(records[1].method, "tools/call");
    EXPECT_EQ(*records[1].upstream, "mini2");
    EXPECT_EQ(names(records[1].passage.trace), all_stages());
}

TEST_F(gateway_fixture, a_federated_list_passes_all_nine_stages_in_order) {
    auto session = initialize();
    auto [status, body] = post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", session);
    EXPECT_EQ(status, 200);
    auto& tools = body.at("result").at("tools").as_array();
    ASSERT_EQ(tools.size(), 4u); // echo and sample at each upstream
    EXPECT_EQ(tools[0].at("name"), "m__echo");
    EXPECT_EQ(tools[1].at("name"), "m__sample");
    EXPECT_EQ(tools[2].at("name"), "n__echo");
    EXPECT_EQ(tools[3].at("name"), "n__sample");
    std::lock_guard lock(mutex);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(names(records[1].passage.trace), all_stages());
    EXPECT_EQ(records[1].audit.upstream_calls, 2);
    EXPECT_EQ(*records[1].audit.items_served, 4);
}

TEST_F(gateway_fixture, an_unknown_namespace_is_answered_and_recorded_once) {
    auto session = initialize();
    auto [status, body] = post(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"zz__echo"}})", session);
    EXPECT_EQ(status, 200);
    EXPECT_EQ(body.at("error").at("code"), -32043);
    std::lock_guard lock(mutex);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[1].audit.outcome, protocol::outcome::error);
    // No namespace owns it: the caller's tools list was looked up for that name (one fetch per
    // upstream, cached after; docs/apps.md), and no upstream was called with it.
    EXPECT_EQ(records[1].audit.upstream_calls, 2);
    EXPECT_FALSE(records[1].upstream);
}

TEST_F(gateway_fixture, a_delete_is_session_transport_and_leaves_no_request_record) {
    auto session = initialize();
    EXPECT_EQ(send(http::verb::delete_, session), 200);
    EXPECT_EQ(send(http::verb::delete_, session), 404); // gone: the session is closed
    auto [status, body] = post(R"({"jsonrpc":"2.0","id":4,"method":"tools/list"})", session);
    EXPECT_EQ(status, 404);
    std::lock_guard lock(mutex);
    // initialize and the refused list; the DELETEs passed authentication and left no record.
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].method, "initialize");
    EXPECT_EQ(records[1].method, "tools/list");
}

TEST_F(gateway_fixture, upstream_calls_continue_the_callers_trace) {
    auto session = initialize();
    const std::string caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    auto [status, body] = post(
        R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"m__echo","arguments":{"message":"t"}}})",
        session, nullptr, caller);
    EXPECT_EQ(status, 200);
    std::lock_guard lock(mutex);
    auto call = std::find_if(upstream_seen.begin(), upstream_seen.end(),
                             [](auto& r) { return r.method == "tools/call"; });
    ASSERT_NE(call, upstream_seen.end());
    // Same trace id and flags, a new span id (the gateway's own).
    ASSERT_EQ(call->traceparent.size(), caller.size());
    EXPECT_EQ(call->traceparent.substr(0, 36), caller.substr(0, 36));
    EXPECT_NE(call->traceparent.substr(36, 16), caller.substr(36, 16));
    EXPECT_EQ(call->traceparent.substr(52), "-01");
    // The call went on the upstream's root session, opened by the handshake.
    EXPECT_FALSE(call->session_id.empty());
}

TEST_F(gateway_fixture, a_caller_without_trace_context_starts_a_new_trace) {
    auto session = initialize();
    post(
        R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"m__echo","arguments":{"message":"t"}}})",
        session);
    std::lock_guard lock(mutex);
    auto call = std::find_if(upstream_seen.begin(), upstream_seen.end(),
                             [](auto& r) { return r.method == "tools/call"; });
    ASSERT_NE(call, upstream_seen.end());
    EXPECT_EQ(call->traceparent.size(), 55u);
    EXPECT_EQ(call->traceparent.substr(0, 3), "00-");
}

TEST_F(gateway_fixture, a_restarted_upstream_is_reinitialized_and_concurrent_calls_keep_params) {
    auto session = initialize();
    auto call = [&](int i) {
        return post(
            R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                R"(,"method":"tools/call","params":{"name":"m__echo","arguments":{"message":"r)" +
                std::to_string(i) + R"("}}})",
            session);
    };
    EXPECT_EQ(call(1).second.at("result").at("content").at(0).at("text"), "Echo: r1");
    test_support::forget_sessions(); // the upstream "restarts"
    // Several calls race into the 404: one re-initializes, the others join it, none loses
    // its arguments.
    std::vector<std::future<std::pair<int, json::value>>> calls;
    for (int i = 2; i < 8; ++i)
        calls.push_back(std::async(std::launch::async, call, i));
    for (int i = 2; i < 8; ++i) {
        auto [status, body] = calls[i - 2].get();
        EXPECT_EQ(status, 200);
        EXPECT_EQ(body.at("result").at("content").at(0).at("text"),
                  json::value("Echo: r" + std::to_string(i)))
            << body;
    }
    std::lock_guard lock(mutex);
    auto inits = std::count_if(upstream_seen.begin(), upstream_seen.end(),
                               [](auto& r) { return r.method == "initialize"; });
    EXPECT_GE(inits, 2); // the first handshake and at least one after the restart
}
