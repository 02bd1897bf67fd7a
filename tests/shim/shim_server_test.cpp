// gate-stdio's server on a real io thread with real child processes (the stdio test server):
// the teardown paths whose timing a test cannot wait out on the binary (idle expiry is
// driven with an injected time) and the process-group guarantees.
#include "shim/shim_server.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <condition_variable>
#include <csignal>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <future>
#include <gtest/gtest.h>
#include <mutex>
#include <poll.h>
#include <set>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using namespace std::chrono_literals;
using gate::shim::shim_server;
using gate::shim::shim_settings;

namespace {

// Live (not zombie) processes whose process group is `pgid`.
int live_in_group(pid_t pgid) {
    int n = 0;
    DIR* d = opendir("/proc");
    while (auto* e = readdir(d)) {
        std::string name = e->d_name;
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream f("/proc/" + name + "/stat");
        std::string stat((std::istreambuf_iterator<char>(f)), {});
        auto close = stat.rfind(')');
        if (close == std::string::npos)
            continue;
        char state = 0;
        int ppid = 0, pgrp = 0;
        if (std::sscanf(stat.c_str() + close + 2, "%c %d %d", &state, &ppid, &pgrp) == 3 &&
            pgrp == pgid && state != 'Z')
            ++n;
    }
    closedir(d);
    return n;
}

// Whether `pid` runs (a zombie, or no process at all, is not running).
bool alive(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(f)), {});
    auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Waits (event-driven, through a pidfd) until `pid` has exited; true when it has. A process
// killed by a signal is not gone the instant kill() returns.
bool wait_gone(pid_t pid, int timeout_ms = 5000) {
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd < 0)
        return errno == ESRCH; // already gone (and reaped)
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, timeout_ms);
    ::close(fd);
    return n == 1;
}

struct reply {
    int status;
    std::string body;
    std::string session;
};

class ShimServer : public ::testing::Test {
protected:
    void start(std::vector<std::string> server_args = {}, std::size_t max_sessions = 4,
               const std::function<void(shim_settings&)>& tune = {}) {
        std::signal(SIGPIPE, SIG_IGN);
        shim_settings s;
        s.server.argv = {GATE_STDIO_TEST_SERVER};
        for (auto& a : server_args)
            s.server.argv.push_back(a);
        s.max_sessions = max_sessions;
        s.kill_grace = 300ms;
        if (tune)
            tune(s);
        server = std::make_unique<shim_server>(io, std::move(s));
        server->on_reaped = [this](pid_t pid) {
            std::lock_guard lock(mutex);
            reaped.insert(pid);
            cv.notify_all();
        };
        port = server->listen("127.0.0.1", 0);
        io_thread = std::thread([this] { io.run(); });
    }

    void TearDown() override {
        if (server) {
            std::promise<void> done;
            asio::post(io, [&] { server->shutdown([&] { done.set_value(); }); });
            EXPECT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
        }
        io.stop();
        if (io_thread.joinable())
            io_thread.join();
    }

    reply post(const std::string& body, const std::string& session = {}) {
        asio::io_context c;
        beast::tcp_stream s(c);
        s.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        http::request<http::string_body> req{http::verb::post, "/mcp", 11};
        req.set(http::field::host, "localhost");
        req.set(http::field::content_type, "application/json");
        req.set(http::field::accept, "application/json, text/event-stream");
        if (!session.empty())
            req.set("Mcp-Session-Id", session);
        req.body() = body;
        req.prepare_payload();
        http::write(s, req);
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        http::read(s, buf, res);
        return {static_cast<int>(res.result_int()), res.body(), std::string(res["Mcp-Session-Id"])};
    }

    std::string open_session() {
        auto r = post(
            R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
        EXPECT_EQ(r.status, 200) << r.body;
        EXPECT_FALSE(r.session.empty());
        return r.session;
    }

    // The text of a tools/call answer.
    std::string call(const std::string& session, const std::string& tool) {
        auto r = post(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")" + tool +
                          R"("}})",
                      session);
        EXPECT_EQ(r.status, 200) << r.body;
        auto v = json::parse(r.body);
        return std::string(v.at("result").at("content").at(0).at("text").as_string().c_str());
    }

    std::string metrics() {
        asio::io_context c;
        beast::tcp_stream s(c);
        s.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        http::request<http::empty_body> req{http::verb::get, "/metrics", 11};
        req.set(http::field::host, "localhost");
        http::write(s, req);
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        http::read(s, buf, res);
        return res.body();
    }

    bool wait_reaped(pid_t pid) {
        std::unique_lock lock(mutex);
        return cv.wait_for(lock, 10s, [&] { return reaped.contains(pid); });
    }

    template <class F> auto on_io(F f) {
        std::packaged_task<decltype(f())()> task(std::move(f));
        auto result = task.get_future();
        asio::post(io, [&task] { task(); });
        return result.get();
    }

    asio::io_context io;
    std::unique_ptr<shim_server> server;
    std::thread io_thread;
    std::uint16_t port = 0;
    std::mutex mutex;
    std::condition_variable cv;
    std::set<pid_t> reaped;
};

} // namespace

TEST_F(ShimServer, IdleExpiryTakesTheWholeProcessGroupAndFreesTheSlot) {
    start({}, 1);
    auto session = open_session();
    auto who = json::parse(call(session, "whoami"));
    pid_t pid = static_cast<pid_t>(who.at("pid").as_int64());
    EXPECT_EQ(who.at("pgid").as_int64(), pid); // a group of its own
    auto grandchild = std::stoi(call(session, "grandchild"));
    EXPECT_EQ(live_in_group(pid), 2);

    auto now = std::chrono::steady_clock::now();
    on_io([&] { server->sweep_idle(now + 4min); }); // not idle long enough
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":5,"method":"ping"})", session).status, 200);
    on_io([&] { server->sweep_idle(now + 10min); });
    ASSERT_TRUE(wait_reaped(pid));
    EXPECT_TRUE(wait_gone(grandchild));
    EXPECT_FALSE(alive(grandchild));
    EXPECT_EQ(live_in_group(pid), 0);
    EXPECT_EQ(on_io([&] { return server->children(); }), 0u);
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":6,"method":"ping"})", session).status, 404);
    // The one slot is free again.
    open_session();
}

TEST_F(ShimServer, AChildThatIgnoresTermIsKilledAfterTheGrace) {
    start({"--ignore-term"});
    auto session = open_session();
    pid_t pid = static_cast<pid_t>(json::parse(call(session, "whoami")).at("pid").as_int64());
    auto started = std::chrono::steady_clock::now();
    on_io([&] { server->sweep_idle(started + 1h); });
    ASSERT_TRUE(wait_reaped(pid));
    EXPECT_EQ(live_in_group(pid), 0);
}

TEST_F(ShimServer, ACrashAnswersTheRequestInFlightAndEndsTheSession) {
    start();
    auto session = open_session();
    pid_t pid = static_cast<pid_t>(json::parse(call(session, "whoami")).at("pid").as_int64());
    auto r = post(R"({"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"crash"}})",
                  session);
    EXPECT_EQ(r.status, 200);
    auto v = json::parse(r.body);
    EXPECT_EQ(v.at("id").as_string(), "c");
    EXPECT_EQ(v.at("error").at("code").as_int64(), -32603);
    EXPECT_NE(
        std::string(v.at("error").at("message").as_string().c_str()).find("exited with status 7"),
        std::string::npos)
        << r.body;
    ASSERT_TRUE(wait_reaped(pid));
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":6,"method":"ping"})", session).status, 404);
}

TEST_F(ShimServer, ShutdownReapsEveryChild) {
    start();
    std::vector<pid_t> pids, grandchildren;
    for (int i = 0; i < 3; ++i) {
        auto session = open_session();
        pids.push_back(
            static_cast<pid_t>(json::parse(call(session, "whoami")).at("pid").as_int64()));
        grandchildren.push_back(std::stoi(call(session, "grandchild")));
    }
    std::promise<void> done;
    asio::post(io, [&] { server->shutdown([&] { done.set_value(); }); });
    ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
    for (auto pid : pids)
        EXPECT_TRUE(wait_reaped(pid));
    for (auto pid : grandchildren)
        EXPECT_TRUE(wait_gone(pid));
    for (auto pid : pids)
        EXPECT_EQ(live_in_group(pid), 0);
    server.reset();
}

TEST_F(ShimServer, AClientThatTakesNothingForTheWriteDeadlineIsCut) {
    // A bound on bytes too large to matter here: only the deadline can end the stream.
    start({}, 4, [](shim_settings& s) {
        s.max_queued_bytes = 1u << 30;
        s.write_deadline = 300ms;
    });
    auto session = open_session();
    asio::io_context c;
    asio::ip::tcp::socket sock(c);
    sock.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    std::string body =
        R"({"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"flood","arguments":{"count":32768,"bytes":1024}}})";
    std::string head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                       "Accept: application/json, text/event-stream\r\nMcp-Session-Id: " +
                       session + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    asio::write(sock, asio::buffer(head + body));
    // The socket is not read until the shim has given up on it.
    constexpr std::string_view cut = R"(gate_stdio_streams_cut_total{reason="write_timeout"} 1)";
    auto until = std::chrono::steady_clock::now() + 10s;
    while (metrics().find(cut) == std::string::npos && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(5ms); // a poll interval, not a synchronization
    EXPECT_NE(metrics().find(cut), std::string::npos);
    // What the kernel had taken arrives, then the end, without the stream's last chunk.
    std::string got;
    boost::system::error_code ec;
    asio::read(sock, asio::dynamic_buffer(got), ec);
    EXPECT_EQ(ec, asio::error::eof);
    EXPECT_EQ(got.rfind("HTTP/1.1 200", 0), 0u);
    EXPECT_FALSE(got.ends_with("\r\n0\r\n\r\n"));
    EXPECT_NE(metrics().find(R"(gate_stdio_streams_cut_total{reason="queue_full"} 0)"),
              std::string::npos);
}
