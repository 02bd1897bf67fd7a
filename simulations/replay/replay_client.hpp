// The recorded clients, played again (docs/simulations.md): every recorded message is sent
// to gate at its recorded arrival time (virtual), over HTTP on loopback, with its session and
// its principal's token. Sessions: a recorded initialize opens the session its later
// messages use; a session whose initialize is not in the recording (it started before the
// recording did) is opened with an initialize of the replay's own first. A list request's
// cursor is the one gate gave that session in the replay, for the same list. With several
// gate instances (a fleet), a load balancer picks the instance of each message: `sticky`
// keeps a session on the instance that opened it (sessions spread in turn), `rotate` sends
// each message to the next instance in turn, moving every session all the time.
#pragma once

#include "protocol/recording.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gate::sim {

// A Bearer token for a recorded principal ("" when the caller is anonymous or gate takes none).
using token_minter = std::function<std::string(const protocol::recorded_principal&)>;

class replay_client {
public:
    enum class balance { sticky, rotate };
    replay_client(boost::asio::io_context& io, std::vector<std::uint16_t> ports,
                  std::string mcp_path, token_minter mint, balance how = balance::sticky);

    // Sends every request at its time (offset from `first` to the virtual clock at the call)
    // and returns once every one was answered.
    boost::asio::awaitable<void> replay(const std::vector<protocol::recorded_request>& requests);

    // One GET to instance `instance` (from 0), its body ("" when it failed).
    boost::asio::awaitable<std::string> get(std::string target, std::size_t instance = 0);

    std::map<int, std::uint64_t> statuses; // HTTP status of each answer (0: no answer)
    std::uint64_t synthesized_initializes = 0;
    // For the invariants (docs/simulations.md): messages POSTed (each must leave exactly one
    // audit event), answers that carried a request's response more than once, and cursors, task
    // ids or upstream sessions' own messages one principal was given that another was given too.
    std::uint64_t posts = 0;
    std::uint64_t answered_twice = 0;
    std::uint64_t shared_across_principals = 0;
    std::uint64_t heard_from_upstreams = 0; // upstream messages that reached a client

private:
    struct exchange_result {
        int status = 0;
        std::string session; // Mcp-Session-Id of the answer
        std::string body;
    };
    boost::asio::awaitable<exchange_result>
    exchange(std::size_t instance, std::string method, std::string target, std::string body,
             std::vector<std::pair<std::string, std::string>> headers);
    // The instance the balancer sends `r` to.
    std::size_t instance_for(const protocol::recorded_request& r);
    boost::asio::awaitable<void> send(const protocol::recorded_request& r);
    boost::asio::awaitable<void> open_session(const protocol::recorded_request& r);
    std::vector<std::pair<std::string, std::string>>
    headers_for(const protocol::recorded_request& r);
    void note_cursor(const std::string& alias, const std::string& method, const std::string& body);
    // Checks an answer to `r`: its response at most once, and whose its cursors and tasks are.
    void check_answer(const protocol::recorded_request& r, const std::string& body);
    std::map<std::string, std::string> given_to_; // cursor or task id -> principal key

    boost::asio::io_context& io_;
    std::vector<std::uint16_t> ports_;
    std::string mcp_path_;
    token_minter mint_;
    balance balance_;
    std::size_t turn_ = 0; // rotate: the next message's instance; sticky: the next session's
    std::map<std::string, std::size_t> home_; // sticky: a session alias's instance
    std::vector<std::vector<std::unique_ptr<boost::beast::tcp_stream>>> idle_; // per instance
    std::map<std::string, std::string> live_;   // recorded session alias -> gate's session id
    std::map<std::string, bool> opened_;        // aliases the replay tried to open itself
    std::map<std::string, std::string> cursor_; // alias \n list method -> nextCursor
    std::uint64_t outstanding_ = 0;
};

} // namespace gate::sim
