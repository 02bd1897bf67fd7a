// http_fetch and the prepared POST of the decision hook's questions, against a loopback peer
// written here that records each request and answers as a test says: the head written once
// and each question one buffer after it, a connection kept only after a whole 2xx with nothing
// after it, a kept connection the peer closed or spoke on replaced, the body limit, the
// timeout, a redirect returned as it is, and a name's resolution bounded by the timeout.
#include "process/version.hpp"
#include "tests/support/loopback_http_peer.hpp"
#include "transport/client/http_fetch.hpp"

#include <boost/asio/steady_timer.hpp>
#include <gtest/gtest.h>
#include <optional>

namespace gate::transport {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using fetched = std::variant<fetch_answer, std::string>;
using test_support::allow;
using test_support::deny;
using test_support::loopback_peer;
using test_support::run_until;

std::optional<fetched> run(asio::io_context& io, asio::awaitable<fetched> fetch) {
    std::optional<fetched> got;
    asio::co_spawn(io, std::move(fetch), [&](std::exception_ptr e, fetched r) {
        if (!e)
            got = std::move(r);
    });
    run_until(io, [&] { return got.has_value(); });
    return got;
}

prepared_post post_to(const std::string& url) {
    auto p = prepare_post(url, "application/json", {{"Authorization", "Bearer t0ken"}});
    EXPECT_TRUE(std::holds_alternative<prepared_post>(p)) << std::get<std::string>(p);
    return std::get<prepared_post>(std::move(p));
}

std::optional<fetched> ask(asio::io_context& io, const prepared_post& to, fetch_pool& pool,
                           std::string_view body = R"({"version":1})",
                           std::chrono::milliseconds timeout = 2000ms,
                           std::size_t max_body = 1024) {
    return run(io, http_post(io.get_executor(), to, body, timeout, max_body, nullptr, pool));
}

unsigned status_of(const std::optional<fetched>& got) {
    if (!got || !std::holds_alternative<fetch_answer>(*got))
        return 0;
    return std::get<fetch_answer>(*got).status;
}

std::string failure_of(const std::optional<fetched>& got) {
    if (!got)
        return "(no end within 5 s)";
    return std::holds_alternative<std::string>(*got) ? std::get<std::string>(*got) : "(an answer)";
}

// A resolver that never answers: a name server that does not reply.
asio::awaitable<std::variant<std::vector<tcp::endpoint>, std::string>>
never_resolved(const std::string&, const std::string&) {
    asio::steady_timer forever(co_await asio::this_coro::executor,
                               asio::steady_timer::time_point::max());
    boost::system::error_code ec;
    co_await forever.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    co_return std::string("never");
}

TEST(prepared_post, writes_the_head_once_and_each_question_as_its_length_and_body_after_it) {
    auto p = post_to("http://127.0.0.1:8181/decide?x=1");
    EXPECT_EQ(p.head, "POST /decide?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8181\r\nUser-Agent: gate/" +
                          std::string(process::gate_version) +
                          "\r\nAccept: application/json\r\nAuthorization: Bearer "
                          "t0ken\r\nContent-Type: application/json\r\n");
    EXPECT_EQ(p.wire("{}"), p.head + "Content-Length: 2\r\n\r\n{}");
    EXPECT_EQ(p.origin, "http://127.0.0.1:8181");
    auto tls = post_to("https://hook.example/d");
    EXPECT_TRUE(tls.secure);
    EXPECT_EQ(tls.port, "443");
    EXPECT_EQ(tls.origin, "https://hook.example:443");
    EXPECT_NE(tls.head.find("\r\nHost: hook.example\r\n"), std::string::npos) << tls.head;
}

TEST(prepared_post, a_field_with_a_control_character_is_refused_by_name_never_by_value) {
    auto p = prepare_post("http://127.0.0.1:1/d", "application/json",
                          {{"Authorization", "Bearer s3cret\r\nX-Injected: 1"}});
    ASSERT_TRUE(std::holds_alternative<std::string>(p));
    EXPECT_NE(std::get<std::string>(p).find("Authorization"), std::string::npos);
    EXPECT_EQ(std::get<std::string>(p).find("s3cret"), std::string::npos);
    auto bad_name = prepare_post("http://127.0.0.1:1/d", "application/json", {{"A\nB", "v"}});
    ASSERT_TRUE(std::holds_alternative<std::string>(bad_name));
    EXPECT_NE(std::get<std::string>(bad_name).find("(an invalid name)"), std::string::npos);
    auto not_http = prepare_post("ftp://127.0.0.1/d", "application/json", {});
    ASSERT_TRUE(std::holds_alternative<std::string>(not_http));
    EXPECT_NE(std::get<std::string>(not_http).find("is not an http(s) URL"), std::string::npos);
}

TEST(http_post, sends_each_question_as_written_and_keeps_the_connection_after_a_whole_2xx) {
    asio::io_context io;
    loopback_peer peer(io);
    fetch_pool pool;
    auto to = post_to(peer.url());
    auto first = ask(io, to, pool, R"({"n":1})");
    ASSERT_EQ(status_of(first), 200u) << failure_of(first);
    EXPECT_EQ(std::get<fetch_answer>(*first).body, R"({"decision":"allow"})");
    EXPECT_EQ(std::get<fetch_answer>(*first).content_type, "application/json");
    EXPECT_EQ(pool.size(), 1u);
    EXPECT_EQ(status_of(ask(io, to, pool, R"({"n":2})")), 200u);
    ASSERT_EQ(peer.requests.size(), 2u);
    EXPECT_EQ(peer.requests[0], to.wire(R"({"n":1})"));
    EXPECT_EQ(peer.requests[1], to.wire(R"({"n":2})"));
    EXPECT_EQ(peer.sockets.size(), 1u) << "the second question on the kept connection";
}

TEST(http_post, keeps_no_connection_after_bytes_beyond_the_answer_or_an_answer_not_2xx) {
    asio::io_context io;
    loopback_peer peer(io);
    fetch_pool pool;
    auto to = post_to(peer.url());
    peer.answer = [](std::size_t) { return allow + deny; };
    auto extra = ask(io, to, pool);
    EXPECT_EQ(std::get<fetch_answer>(*extra).body, R"({"decision":"allow"})");
    EXPECT_EQ(pool.size(), 0u) << "the bytes after it would answer the next question";
    peer.answer = [](std::size_t) {
        return std::string("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
    };
    EXPECT_EQ(status_of(ask(io, to, pool)), 500u);
    EXPECT_EQ(pool.size(), 0u);
    peer.answer = [](std::size_t) { return std::string("HTTP/1.1 100 Continue\r\n\r\n"); };
    EXPECT_EQ(status_of(ask(io, to, pool)), 100u);
    EXPECT_EQ(pool.size(), 0u) << "one answer is read per question: a 1xx is not the answer";
}

TEST(http_post, a_redirect_is_returned_as_it_is_never_followed) {
    asio::io_context io;
    loopback_peer peer(io), elsewhere(io);
    fetch_pool pool;
    auto to = post_to(peer.url());
    peer.answer = [&](std::size_t) {
        return "HTTP/1.1 307 Temporary Redirect\r\nLocation: " + elsewhere.url() +
               "\r\nContent-Length: 0\r\n\r\n";
    };
    EXPECT_EQ(status_of(ask(io, to, pool)), 307u);
    EXPECT_TRUE(elsewhere.requests.empty());
}

TEST(http_post, a_kept_connection_the_peer_closed_is_replaced_and_the_question_asked_once_more) {
    asio::io_context io;
    loopback_peer peer(io);
    peer.close_after_answer = true; // and it never says so (no Connection: close)
    fetch_pool pool;
    auto to = post_to(peer.url());
    EXPECT_EQ(status_of(ask(io, to, pool)), 200u);
    run_until(io, [&] { return peer.closed == 1; });
    ASSERT_EQ(pool.size(), 1u);
    auto again = ask(io, to, pool);
    EXPECT_EQ(status_of(again), 200u) << failure_of(again);
    EXPECT_EQ(peer.sockets.size(), 2u);
}

TEST(http_post, a_kept_connection_the_peer_spoke_on_while_it_idled_is_dropped) {
    asio::io_context io;
    loopback_peer peer(io);
    fetch_pool pool;
    auto to = post_to(peer.url());
    EXPECT_EQ(status_of(ask(io, to, pool)), 200u);
    ASSERT_EQ(pool.size(), 1u);
    asio::write(*peer.sockets[0], asio::buffer(deny)); // unasked: not the next one's answer
    auto next = ask(io, to, pool);
    EXPECT_EQ(std::get<fetch_answer>(*next).body, R"({"decision":"allow"})");
    EXPECT_EQ(peer.sockets.size(), 2u);
}

TEST(http_post, an_answer_over_the_body_limit_fails_naming_the_limit) {
    asio::io_context io;
    loopback_peer peer(io);
    fetch_pool pool;
    auto to = post_to(peer.url());
    auto got = ask(io, to, pool, "{}", 2000ms, 8);
    EXPECT_EQ(failure_of(got), peer.url() + " answered more than 8 bytes");
    EXPECT_EQ(pool.size(), 0u);
}

TEST(http_post, a_peer_that_never_answers_fails_at_the_timeout) {
    asio::io_context io;
    loopback_peer peer(io);
    peer.answer = [](std::size_t) { return std::string(); };
    fetch_pool pool;
    auto to = post_to(peer.url());
    auto got = ask(io, to, pool, "{}", 30ms);
    EXPECT_EQ(failure_of(got), peer.url() + " did not answer within 30 ms");
    EXPECT_EQ(pool.size(), 0u);
    EXPECT_EQ(peer.requests.size(), 1u) << "asked once: a timeout is not retried";
}

TEST(http_post, a_name_is_resolved_by_the_resolve_step_and_sent_as_the_host) {
    asio::io_context io;
    loopback_peer peer(io);
    fetch_pool pool;
    auto to = post_to("http://hook.test:" + std::to_string(peer.port()) + "/decide");
    std::vector<std::string> asked;
    to.resolve = [&](const std::string& host, const std::string& port)
        -> asio::awaitable<std::variant<std::vector<tcp::endpoint>, std::string>> {
        asked.push_back(host + ":" + port);
        co_return std::vector<tcp::endpoint>{
            {asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(std::stoi(port))}};
    };
    EXPECT_EQ(status_of(ask(io, to, pool)), 200u);
    EXPECT_EQ(asked, std::vector<std::string>{"hook.test:" + std::to_string(peer.port())});
    ASSERT_EQ(peer.requests.size(), 1u);
    EXPECT_NE(peer.requests[0].find("\r\nHost: hook.test:"), std::string::npos);
}

// The timeout covers the name's resolution: a resolver that never answers holds neither a
// question nor a fetch past it.
TEST(http_post, a_resolver_that_never_answers_fails_the_question_at_its_timeout) {
    asio::io_context io;
    fetch_pool pool;
    auto to = post_to("http://hook.test:8181/decide");
    to.resolve = never_resolved;
    auto got = ask(io, to, pool, "{}", 40ms);
    EXPECT_NE(failure_of(got).find("cannot resolve hook.test for http://hook.test:8181/decide: "
                                   "resolution timeout after"),
              std::string::npos)
        << failure_of(got);
}

TEST(http_fetch, a_resolver_that_never_answers_fails_the_fetch_at_its_timeout) {
    asio::io_context io;
    fetch_request req;
    req.url = "http://keys.test/jwks.json";
    req.timeout = 40ms;
    req.resolve = never_resolved;
    auto got = run(io, http_fetch(io.get_executor(), std::move(req)));
    EXPECT_NE(failure_of(got).find("resolution timeout after"), std::string::npos)
        << failure_of(got);
}

TEST(http_fetch, fetches_a_document_and_keeps_nothing_without_a_pool) {
    asio::io_context io;
    loopback_peer peer(io);
    peer.answer = [](std::size_t) {
        return std::string("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: "
                           "max-age=60\r\nContent-Length: 2\r\n\r\n{}");
    };
    fetch_request req;
    req.url = peer.url("/jwks.json");
    auto got = run(io, http_fetch(io.get_executor(), std::move(req)));
    ASSERT_EQ(status_of(got), 200u) << failure_of(got);
    EXPECT_EQ(std::get<fetch_answer>(*got).cache_control, "max-age=60");
    ASSERT_EQ(peer.requests.size(), 1u);
    EXPECT_NE(peer.requests[0].find("GET /jwks.json HTTP/1.1\r\n"), std::string::npos);
    EXPECT_NE(peer.requests[0].find("Connection: close\r\n"), std::string::npos);
}

} // namespace
} // namespace gate::transport
