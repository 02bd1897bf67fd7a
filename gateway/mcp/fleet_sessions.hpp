// The gateway's side of a fleet (server.redisUrl; docs/fleet.md): downstream sessions that
// any instance continues, the lists and server requests they share, and what each instance
// follows in the shared store on its own timer (breakers the fleet opened, sessions ended
// elsewhere, records of sessions in use). Without a store (not joined) each function does
// nothing, or answers as a single instance would.
//
// A session's record (its negotiated version, the client's capabilities, the principal that
// opened it) is written before the client hears its id; an instance that gets a request for
// an id it does not hold reads the record and adopts the session. What cannot move: a GET
// stream stays on the instance the client opened it on.
#pragma once

#include "gateway/fleet/fleet_store.hpp"
#include "gateway/mcp/list_sharing.hpp"
#include "gateway/mcp/parked_fleet.hpp"
#include "gateway/mcp/session_table.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/entry_steps.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "protocol/client_profile.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/list_kind.hpp"
#include "transport/http/http_reply.hpp"

#include <array>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway {

// The entry's session step finds a request's session through it (pipeline::session_directory),
// here or in the fleet's store; stage 8 publishes a new one through it
// (pipeline::session_publisher).
class fleet_sessions final : public pipeline::session_directory,
                             public pipeline::session_publisher,
                             public list_sharing {
public:
    // What the fleet's side asks of the gateway it runs in.
    class gateway_side {
    public:
        // An adopted session counts against its caller's share like one opened here (a
        // session ended to make room ends everywhere); false: refused.
        virtual bool admitted(const session_table::admission& a) = 0;
        // A session a client ended through another instance ends here too, everything of it.
        virtual void session_ended(std::string id) = 0;
        virtual bool stopping() const = 0;
        // The upstreams as they stand now (a reload replaces them).
        virtual std::shared_ptr<const federation_view> current_view() const = 0;

    protected:
        ~gateway_side() = default;
    };

    fleet_sessions(session_table& sessions, gateway_side& g) : sessions_(sessions), g_(g) {}
    fleet_sessions(const fleet_sessions&) = delete;
    fleet_sessions& operator=(const fleet_sessions&) = delete;

    // At construction, with a shared store: this instance's `tag` goes into the ids it mints
    // for server requests; `cursor_key` is written again if the store loses its data.
    void join(std::shared_ptr<fleet_store> store, std::string tag,
              const std::array<unsigned char, 32>& cursor_key);
    bool joined() const { return store_ != nullptr; }
    // Empty without a fleet.
    const std::string& tag() const { return tag_; }
    // The fleet's store for parked calls and this instance's tag (none outside a fleet).
    parked_fleet parked_calls() const;

    // A new session's record written for every instance.
    boost::asio::awaitable<void> publish_session(const std::string& id,
                                                 const std::string& protocol_version,
                                                 const boost::json::object& capabilities,
                                                 const std::string& owner) override;
    // Whether `id` is a session of `caller`, here or (adopted now) in the store; adopting one
    // counts against the share of its caller (`peer`: its client address).
    boost::asio::awaitable<bool> known_session(const std::string& id,
                                               const policy::caller_ref& caller,
                                               const boost::asio::ip::address& peer);
    // The same where the store need not be asked; nullopt where known_session must ask.
    std::optional<bool> known_session_now(const std::string& id,
                                          const policy::caller_ref& caller) const;
    // A session ended here, announced.
    void end_session(const std::string& id);

    // The shared list cache (per upstream, kind and client profile): lists another instance
    // fetched fill a plan before any upstream is admitted; a fetched list is shared (`sources`:
    // each item as the upstream wrote it, empty: not known); an upstream's list_changed drops
    // its lists.
    boost::asio::awaitable<void> fill_from_fleet(protocol::list_kind kind, actors::list_plan& plan,
                                                 const request_context& rec) override;
    void share_list(protocol::list_kind kind, protocol::client_profile profile,
                    const upstream_client& client, const boost::json::array& items,
                    const std::vector<std::string>& sources) override;
    void drop_shared_lists(const upstream_client& client) override;

    // A request an upstream sent a client, recorded for the fleet (the client may answer
    // through any instance), and such an answer delivered to the upstream session that asked
    // (nullopt: no record of it). `body`: the text the client wrote its answer in.
    void share_server_request(const std::string& session, const std::string& minted,
                              const std::string& upstream, const boost::json::value& upstream_id);
    void answered_here(const std::string& session, const std::string& minted);
    boost::asio::awaitable<std::optional<transport::http_reply>>
    answer_for_fleet(const std::string& session, const protocol::message& msg, request_context& rec,
                     std::string_view body);

    // Follows what the fleet decided elsewhere, on a timer, until the gateway stops.
    boost::asio::awaitable<void> follow();

private:
    // The session step's (pipeline::session_directory).
    session_use use_now(const std::string& id, const policy::caller_ref& caller) override;
    boost::asio::awaitable<bool> known(const std::string& id, const policy::caller_ref& caller,
                                       const boost::asio::ip::address& peer) override {
        return known_session(id, caller, peer);
    }
    std::optional<session_call> use(const std::string& id) override;

    // One turn of follow(): breakers the fleet opened, sessions ended elsewhere.
    boost::asio::awaitable<void> follow_breakers();
    boost::asio::awaitable<void> follow_endings(std::int64_t& ended_after);

    session_table& sessions_;
    gateway_side& g_;
    std::shared_ptr<fleet_store> store_;
    std::string tag_;
    std::array<unsigned char, 32> cursor_key_{};
};

} // namespace gate::gateway
