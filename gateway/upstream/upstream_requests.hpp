// What a request to an upstream means, apart from its admission: it goes on its session (made
// and opened on first use), and once more after a 404 on a session (the upstream forgot it:
// re-initialized, single-flighted), never after a 404 without one (an answer at 2026-07-28);
// the answer must be a JSON-RPC response to it; a 2026-07-28 upstream's input_required result
// is answered by the call's client and the call continued. Lists are fetched page by page,
// messages delivered on a session, the level a client set sent on its session.
#pragma once

#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_sessions.hpp"
#include "gateway/upstream/upstream_state.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace gate::gateway {

class upstream_exchange;
class upstream_recording;

class upstream_requests {
public:
    upstream_requests(upstream_state& state, upstream_sessions& sessions,
                      upstream_exchange& exchange, upstream_guards& guards,
                      upstream_recording& recording);
    upstream_requests(const upstream_requests&) = delete;
    upstream_requests& operator=(const upstream_requests&) = delete;

    // One request, already admitted, on the session ctx names. The reply carries the
    // gateway's upstream-side id; the caller puts its own client's id back.
    boost::asio::awaitable<upstream_reply> send(std::string_view method, boost::json::object params,
                                                const call_context& ctx);
    // What one list of one upstream may hold: its pages' texts summed. Each page is read no
    // further than what remains of it, so a list past it fails before it is parsed whole (it
    // is left out of the federation's list, and nothing of it is learnt or cached).
    static constexpr std::size_t max_list_bytes = 16 * 1024 * 1024;
    // One complete list, following the upstream's own nextCursor pages, on one admission.
    // With `sources`, each item's text as the upstream wrote it (empty where not known).
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch_list(std::string_view method, std::string_view key, const call_context& ctx,
               upstream_guards::ticket admitted, std::vector<std::string>* sources);
    // The upstream's initialize result (after the handshake), for passthrough mode.
    boost::asio::awaitable<std::variant<boost::json::object, upstream_failure>>
    initialize_result(const call_context& ctx);
    // A notification or a response on a bridged session (empty: the root session). False
    // when that session is not open or the upstream refused it.
    boost::asio::awaitable<bool> deliver(const std::string& bridge, boost::json::object message,
                                         std::string source);
    // A response on the upstream session at `to` (one this instance may not hold).
    boost::asio::awaitable<bool> deliver_to(const session_address& to, boost::json::object message,
                                            std::string source);
    // The level a client asked for: kept for its bridged session's handshake, and sent now if
    // that session is open (at a 2026-07-28 upstream it rides each request's `_meta`).
    boost::asio::awaitable<void> set_log_level(const std::string& bridge, std::string level,
                                               const boost::json::object& capabilities);
    // Kept only, for the session's handshake (session_keeper::keep_log_level).
    void keep_log_level(const std::string& bridge, std::string level,
                        const boost::json::object& capabilities);

    // Cancels the call at a 2026-07-28 upstream whose request went out under `id` (gate's):
    // its exchange is closed. False when no such request is on the wire.
    bool cancel(const boost::json::value& id, std::string reason);

private:
    // Why a list over max_list_bytes (at its page `pages`) failed, said in the log too.
    std::string list_over_bound(std::string_view method, int pages) const;
    class running_call;
    // Request `id` as it goes to the upstream: the envelope of its era in `params._meta`, the
    // caller's trace continued, written from `source` (the client's text) where it can be.
    outgoing_message outgoing(std::int64_t id, std::string_view method, boost::json::object& params,
                              bool with_params, std::string_view source, const call_context& ctx,
                              const upstream_session& s);
    // The session a request went on at `generation` is gone upstream (a 404, or its replica
    // refused the connection): the next request opens it again.
    void forget(upstream_session& s, std::uint64_t generation);
    // After `f` on the replica `ep`: whether the request goes once more (its session forgotten,
    // opened again elsewhere, `refused_by` set), because it never reached `ep`.
    bool elsewhere(const upstream_failure& f, const upstream_endpoint& ep, upstream_session& s,
                   std::uint64_t generation, std::optional<std::size_t>& refused_by);
    // Sends a notification on a bridged session (empty: the root), without waiting for it.
    void tell(const std::string& bridge, boost::json::object message);
    // A tools list fetched whole: judged under the entry's pins (the items withheld taken out
    // of `all`), then what it says of each tool published for every io thread's client.
    boost::asio::awaitable<void> learn_tools(boost::json::array& all,
                                             std::vector<std::string>* sources);
    // After a -32020: whether the tools learnt again give the call other headers than `sent`.
    boost::asio::awaitable<bool> headers_relearnt(const boost::json::object& params,
                                                  const protocol::header_fields& sent,
                                                  const call_context& ctx);

    upstream_state& state_;
    upstream_sessions& sessions_;
    upstream_exchange& exchange_;
    upstream_guards& guards_;
    upstream_recording& recording_;
    // The requests on the wire at a 2026-07-28 upstream, by gate's id for them.
    std::unordered_map<std::int64_t, call_cancel*> running_;
};

} // namespace gate::gateway
