// The bridge keeper's interface: one message type per event or question, each question with
// its reply channel. Events are fire-and-forget so a proxied call never waits on this actor.
#pragma once

#include "actors/bridging/bridge_ledger.hpp"
#include "actors/message_inspection.hpp"
#include "actors/reply.hpp"

#include <boost/describe/class.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::actors {

// Where a client's call went: cancelling it means telling this upstream about this id.
struct call_target {
    std::string upstream;
    boost::json::value upstream_id;
};

struct bridge_used {
    std::string session;
    std::string upstream; // its configured id
};

struct bridge_call_started {
    std::string session;
    std::string client_id; // canonical JSON text of the client's id
    std::string upstream;  // its configured id
    boost::json::value upstream_id;
};

struct bridge_call_ended {
    std::string session;
    std::string client_id;
};

// The client cancelled one of its calls: where did it go?
struct bridge_cancel_lookup {
    std::string session;
    std::string client_id;
    reply_to<std::optional<call_target>> reply;
};

struct bridge_subscription {
    std::string session;
    std::string upstream; // its configured id
    std::string uri;
    bool subscribed; // false: unsubscribed
};

// `resources/updated` arrived from an upstream: which clients receive it?
struct bridge_updated {
    std::string upstream; // its configured id
    std::string uri;
    std::optional<std::string> origin; // the downstream session whose bridge carried it
    reply_to<std::vector<std::string>> reply;
};

struct bridge_session_ended {
    std::string session;
};

// The client opened (or closed) its GET stream.
struct bridge_listening {
    std::string session;
    bool open;
};

// A reload retired or replaced the upstream: its sessions ended with its old client.
struct bridge_upstream_gone {
    std::string upstream;
};

// A bridged-session actor found itself idle, having handled `seen` events from the keeper:
// the keeper retires it only if it sent no more since (none is in flight to it).
struct bridged_idle {
    std::string session;
    std::string upstream;
    std::uint64_t seen = 0;
};

// Everything the io thread tells the keeper without waiting, in the order it happened. The io
// thread sends one batch per turn of its loop instead of one message per call: under load a
// message per event would wake a worker (and on a busy core, switch context) twice per call.
using bridge_event =
    std::variant<bridge_used, bridge_call_started, bridge_call_ended, bridge_subscription,
                 bridge_session_ended, bridge_listening, bridge_upstream_gone>;
struct bridge_batch {
    std::vector<bridge_event> events;
};

// Bridges to end (idle, or their downstream session ended): the io side closes them.
using retire_bridges = std::function<void(std::vector<retired_bridge>)>;

BOOST_DESCRIBE_STRUCT(bridge_used, (), (session, upstream))
BOOST_DESCRIBE_STRUCT(bridge_call_started, (), (session, client_id, upstream, upstream_id))
BOOST_DESCRIBE_STRUCT(bridge_call_ended, (), (session, client_id))
BOOST_DESCRIBE_STRUCT(bridge_cancel_lookup, (), (session, client_id, reply))
BOOST_DESCRIBE_STRUCT(bridge_subscription, (), (session, upstream, uri, subscribed))
BOOST_DESCRIBE_STRUCT(bridge_updated, (), (upstream, uri, origin, reply))
BOOST_DESCRIBE_STRUCT(bridge_session_ended, (), (session))
BOOST_DESCRIBE_STRUCT(bridge_listening, (), (session, open))
BOOST_DESCRIBE_STRUCT(bridge_upstream_gone, (), (upstream))
BOOST_DESCRIBE_STRUCT(bridged_idle, (), (session, upstream, seen))
BOOST_DESCRIBE_STRUCT(bridge_batch, (), (events))

} // namespace gate::actors
