// A simulated upstream MCP server, in the simulation's process and on its io_context, over
// streamable HTTP on a loopback port: sessions, notifications and DELETE like a real server,
// and every request answered from the recording (recorded_answers), a recorded failure
// reproduced (a timeout hangs, an HTTP status is answered, a connection error closes the
// connection). A call's answer comes after a log message of the upstream's own on the call's
// stream naming its upstream session (the cross-principal invariant: replay_client). The same
// listener serves /token (a fixed access token, for upstreams whose
// credential comes from a token endpoint) and /jwks (the simulation's issuer key set).
#pragma once

#include "simulations/replay/fault_script.hpp"
#include "simulations/replay/recorded_traffic.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gate::sim {

class sim_upstream {
public:
    // `upstream`: the id its answers are recorded under; `replica`: which of its urls this is
    // (from 1), for the faults that name one. Listens on 127.0.0.1, a free port.
    sim_upstream(boost::asio::io_context& io, std::string upstream, int replica,
                 std::shared_ptr<recorded_answers> answers,
                 std::shared_ptr<const fault_script> faults = nullptr);
    // The replay's first message is sent at `start`: the faults' times count from it, and
    // restarts and outages are scheduled now.
    void arm_faults(std::chrono::steady_clock::time_point start);

    std::string url() const; // http://127.0.0.1:<port>/mcp
    const std::string& upstream() const { return upstream_; }
    std::string base() const;
    void serve_jwks(boost::json::object set) { jwks_ = std::move(set); }
    // Forgets every session, as a restarted server would: their next requests get 404.
    void forget_sessions() { sessions_.clear(); }

    // What it was asked, for the report.
    std::map<std::string, std::uint64_t> asked;   // by method
    std::uint64_t unanswerable = 0;               // requests the recording had no answer for
    std::map<std::string, std::uint64_t> faulted; // requests a fault decided, by kind

private:
    using request = boost::beast::http::request<boost::beast::http::string_body>;
    using response = boost::beast::http::response<boost::beast::http::string_body>;
    // What becomes of a request: answered (`res` as set), hung until gate gives up, or its
    // connection closed unanswered.
    enum class fate { answer, hang, close };

    boost::asio::awaitable<void> accept_loop();
    boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket);
    // A POST: an MCP message, a call answered from the recording unless a fault decides.
    boost::asio::awaitable<fate> answer_post(const request& req, response& res);
    boost::asio::awaitable<fate> answer_call(const boost::json::object& msg,
                                             const std::string& name, const std::string& session,
                                             response& res);
    // initialize's result; a new session, named in `res`.
    boost::json::object initialized(const boost::json::object& params, response& res);
    // A failure the recording holds, reproduced.
    static fate recorded_failure(const protocol::recorded_answer::failure& failed, response& res);
    // A tools/call answer as an event stream, after a message naming the upstream session.
    static std::string with_session_message(const std::string& session,
                                            const boost::json::object& answer);
    boost::asio::io_context& io_;
    void go_down();
    void come_back();
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::ip::tcp::endpoint bound_;
    std::string upstream_;
    int replica_ = 1;
    std::shared_ptr<recorded_answers> answers_;
    std::shared_ptr<const fault_script> faults_;
    std::optional<std::chrono::steady_clock::time_point> start_;
    // Cut when it goes down. Shared with each connection's coroutine, which may outlive this
    // server (a hung one is destroyed with the io_context).
    std::shared_ptr<std::set<boost::asio::ip::tcp::socket*>> open_ =
        std::make_shared<std::set<boost::asio::ip::tcp::socket*>>();
    std::vector<std::shared_ptr<boost::asio::steady_timer>> scheduled_;
    boost::json::object jwks_;
    std::set<std::string> sessions_;
    std::uint64_t next_session_ = 1;
};

} // namespace gate::sim
