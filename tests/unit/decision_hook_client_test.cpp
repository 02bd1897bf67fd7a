// The decision hook's client against a loopback hook: the head written once is written again
// when the hook's URL or its token changes (a reload, a rotated secret), so a question never
// carries another configuration's token; an answer becomes a verdict, a silent hook a timeout.
#include "gateway/operations/metrics.hpp"
#include "gateway/pipeline/decision_hook_client.hpp"
#include "tests/support/loopback_http_peer.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <optional>
#include <set>

namespace gate::gateway {
namespace {

namespace asio = boost::asio;
using test_support::loopback_peer;
using test_support::run_until;

constexpr const char* token_variable = "GATE_TEST_DECISION_HOOK_TOKEN";

hook_answer ask(asio::io_context& io, decision_hook_client& client,
                const config::decision_hook& hook, std::string question = R"({"version":1})",
                std::string_view traceparent = {}) {
    std::optional<hook_answer> got;
    asio::co_spawn(io, client.ask(hook, policy::hook_stage::call, std::move(question), traceparent),
                   [&](std::exception_ptr e, hook_answer a) {
                       if (!e)
                           got = std::move(a);
                   });
    run_until(io, [&] { return got.has_value(); });
    EXPECT_TRUE(got) << "no verdict within 5 s";
    return got.value_or(hook_answer{});
}

// The value of header `name` in `request` as it was written; "(none)" without one.
std::string field_in(const std::string& request, const std::string& name) {
    auto at = request.find("\r\n" + name + ": ");
    if (at == std::string::npos)
        return "(none)";
    at += name.size() + 4;
    return request.substr(at, request.find("\r\n", at) - at);
}

std::string authorization_in(const std::string& request) {
    return field_in(request, "Authorization");
}

// A client asking one loopback hook, with the hook's configuration.
struct decision_hook_client_on_one_hook : ::testing::Test {
    asio::io_context io;
    loopback_peer hook{io};
    metrics stats;
    decision_hook_client client{io.get_executor(), stats};
    config::decision_hook h = [this] {
        config::decision_hook c;
        c.url = hook.url();
        return c;
    }();
};

TEST(decision_hook_client, each_question_carries_the_token_of_its_own_configuration_as_it_is_now) {
    asio::io_context io;
    loopback_peer hook_a(io), hook_b(io);
    metrics stats;
    decision_hook_client client(io.get_executor(), stats);
    config::decision_hook a;
    a.url = hook_a.url();
    a.bearer_secret_ref = token_variable;
    ::setenv(token_variable, "first", 1);
    EXPECT_EQ(ask(io, client, a).what, hook_answer::said::allow);
    EXPECT_EQ(ask(io, client, a).what, hook_answer::said::allow);
    ::setenv(token_variable, "rotated", 1);
    EXPECT_EQ(ask(io, client, a).what, hook_answer::said::allow);
    ASSERT_EQ(hook_a.requests.size(), 3u);
    EXPECT_EQ(authorization_in(hook_a.requests[0]), "Bearer first");
    EXPECT_EQ(authorization_in(hook_a.requests[1]), "Bearer first");
    EXPECT_EQ(authorization_in(hook_a.requests[2]), "Bearer rotated");
    // A reload to another hook with no token: its questions carry none, and go to it.
    config::decision_hook b;
    b.url = hook_b.url("/other");
    EXPECT_EQ(ask(io, client, b).what, hook_answer::said::allow);
    ASSERT_EQ(hook_b.requests.size(), 1u);
    EXPECT_EQ(authorization_in(hook_b.requests[0]), "(none)");
    EXPECT_EQ(hook_b.requests[0].rfind("POST /other HTTP/1.1\r\n", 0), 0u) << hook_b.requests[0];
    EXPECT_EQ(ask(io, client, a).what, hook_answer::said::allow);
    EXPECT_EQ(authorization_in(hook_a.requests.back()), "Bearer rotated");
    ::unsetenv(token_variable);
}

TEST_F(decision_hook_client_on_one_hook,
       each_question_has_a_key_of_its_own_and_the_trace_it_was_asked_in) {
    const std::string trace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    EXPECT_EQ(ask(io, client, h, R"({"version":1})", trace).what, hook_answer::said::allow);
    EXPECT_EQ(ask(io, client, h).what, hook_answer::said::allow);
    // Not a trace context (a line break that would start a header of its own): left out.
    EXPECT_EQ(ask(io, client, h, R"({"version":1})", trace + "\r\nX-Injected: 1").what,
              hook_answer::said::allow);
    ASSERT_EQ(hook.requests.size(), 3u);
    EXPECT_EQ(field_in(hook.requests[0], "traceparent"), trace);
    EXPECT_EQ(field_in(hook.requests[1], "traceparent"), "(none)");
    EXPECT_EQ(field_in(hook.requests[2], "traceparent"), "(none)");
    EXPECT_EQ(hook.requests[2].find("X-Injected"), std::string::npos);
    std::set<std::string> keys;
    for (const auto& r : hook.requests) {
        auto key = field_in(r, "Idempotency-Key");
        EXPECT_EQ(key.size(), 32u) << key;
        EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos) << key;
        keys.insert(key);
    }
    EXPECT_EQ(keys.size(), 3u) << "a key of its own for each question";
}

// A gauge of the questions out and waiting, in the exposition; -1 when absent.
double questions_gauge(metrics& stats, std::string_view state) {
    auto text = stats.serialize();
    auto line = "gate_decision_hook_questions{state=\"" + std::string(state) + "\"} ";
    auto at = text.find(line);
    return at == std::string::npos ? -1 : std::stod(text.substr(at + line.size()));
}

// Each io thread asks with its own turns (its share of maxConcurrent); the gauges are the
// process's: one thread's count never overwrites another's.
TEST_F(decision_hook_client_on_one_hook, the_questions_gauges_add_every_threads_turns) {
    decision_hook_client other{io.get_executor(), stats}; // another thread's, on the same series
    client.share_among(2);
    other.share_among(2);
    h.max_concurrent = 2; // one turn each
    h.timeout_ms = 300;
    hook.answer = [](std::size_t) { return std::string(); }; // holds every question
    int done = 0;
    auto spawn = [&](decision_hook_client& c) {
        asio::co_spawn(io, c.ask(h, policy::hook_stage::call, R"({"version":1})", {}),
                       [&](std::exception_ptr, hook_answer) { ++done; });
    };
    spawn(client);
    spawn(other);
    run_until(io, [&] { return hook.requests.size() == 2; });
    ASSERT_EQ(hook.requests.size(), 2u);
    spawn(client); // its thread's turn is out: it waits
    run_until(io, [&] { return questions_gauge(stats, "waiting") == 1; });
    EXPECT_EQ(questions_gauge(stats, "out"), 2) << "one out on each thread";
    EXPECT_EQ(questions_gauge(stats, "waiting"), 1);
    run_until(io, [&] { return done == 3; });
    ASSERT_EQ(done, 3);
    EXPECT_EQ(questions_gauge(stats, "out"), 0);
    EXPECT_EQ(questions_gauge(stats, "waiting"), 0);
}

TEST_F(decision_hook_client_on_one_hook, a_denial_is_read_and_a_silent_hook_is_a_timeout) {
    hook.answer = [](std::size_t) { return test_support::deny; };
    EXPECT_EQ(ask(io, client, h).what, hook_answer::said::deny);
    hook.answer = [](std::size_t) { return std::string(); };
    h.timeout_ms = 30;
    auto silent = ask(io, client, h);
    EXPECT_EQ(silent.what, hook_answer::said::error);
    EXPECT_EQ(silent.error_kind, "timeout") << silent.error;
    auto text = stats.serialize();
    EXPECT_NE(text.find(R"(gate_decision_hook_errors_total{kind="timeout",stage="call"} 1)"),
              std::string::npos);
    EXPECT_NE(
        text.find(
            R"(gate_decision_hook_decisions_total{decision="deny",source="hook",stage="call"} 1)"),
        std::string::npos);
}

TEST_F(decision_hook_client_on_one_hook,
       a_question_over_its_bound_is_never_sent_and_refused_under_on_error_allow_too) {
    h.on_error = "allow";
    std::string big = R"({"version":1,"result":")" + std::string(1024 * 1024, 'x') + "\"}";
    auto a = ask(io, client, h, big);
    EXPECT_EQ(a.what, hook_answer::said::error);
    EXPECT_EQ(a.error_kind, "too_large") << a.error;
    EXPECT_TRUE(a.caller_caused);
    EXPECT_FALSE(a.allowed(h)) << "the caller's arguments made it: never let through";
    EXPECT_TRUE(hook.requests.empty()) << "a question over the bound reached the hook";
    // One just under the bound goes.
    EXPECT_EQ(ask(io, client, h, std::string(R"({"v":")") + std::string(1000, 'y') + "\"}").what,
              hook_answer::said::allow);
    EXPECT_EQ(hook.requests.size(), 1u);
    auto text = stats.serialize();
    EXPECT_NE(text.find(R"(gate_decision_hook_errors_total{kind="too_large",stage="call"} 1)"),
              std::string::npos);
    EXPECT_EQ(text.find(R"(gate_decision_hook_failed_open_total{stage="call"} 1)"),
              std::string::npos)
        << text.substr(text.find("gate_decision_hook"), 600);
}

TEST_F(decision_hook_client_on_one_hook,
       a_question_the_hook_calls_bad_is_refused_its_own_failure_is_for_on_error) {
    h.on_error = "allow";
    auto status = [](std::string line) {
        return
            [line](std::size_t) { return "HTTP/1.1 " + line + "\r\nContent-Length: 2\r\n\r\n{}"; };
    };
    for (const auto* line :
         {"400 Bad Request", "413 Content Too Large", "422 Unprocessable Content"}) {
        hook.answer = status(line);
        auto a = ask(io, client, h);
        EXPECT_EQ(a.error_kind, "status") << line;
        EXPECT_TRUE(a.caller_caused) << line;
        EXPECT_FALSE(a.allowed(h)) << line;
    }
    for (const auto* line :
         {"500 Internal Server Error", "503 Service Unavailable", "401 Unauthorized"}) {
        hook.answer = status(line);
        auto a = ask(io, client, h);
        EXPECT_FALSE(a.caller_caused) << line;
        EXPECT_TRUE(a.allowed(h)) << line;
    }
    auto text = stats.serialize();
    EXPECT_NE(text.find(R"(gate_decision_hook_failed_open_total{stage="call"} 3)"),
              std::string::npos)
        << text.substr(text.find("gate_decision_hook"), 600);
}

TEST_F(decision_hook_client_on_one_hook, an_answer_over_its_bound_is_told_without_the_hooks_url) {
    hook.answer = [](std::size_t) {
        std::string body(70 * 1024, ' ');
        return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
               body;
    };
    auto a = ask(io, client, h);
    EXPECT_EQ(a.error_kind, "malformed") << a.error;
    EXPECT_NE(a.error.find("127.0.0.1"), std::string::npos) << "the audit's words name it";
    EXPECT_EQ(a.client_error(), "its answer was more than 65536 bytes");
}

} // namespace
} // namespace gate::gateway
