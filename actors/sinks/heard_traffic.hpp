// What the io thread hears for a recording (gate --record; docs/recording.md), raw: the
// recorder actor parses, redacts and formats it off the request path. No CAF here, so the
// request context can carry one.
#pragma once

#include "policy/principal.hpp"

#include <boost/describe/class.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace gate::actors {

// A message a client sent, as the io thread saw it (raw: the actor parses it).
struct heard_request {
    std::uint64_t seq = 0;
    std::chrono::system_clock::time_point at;
    std::string session; // its Mcp-Session-Id (hashed before it is written); empty: none
    std::string version; // its MCP-Protocol-Version header; empty: none
    policy::caller_ref caller;
    std::string body;
    std::string outcome;
    std::optional<std::string> upstream;
};

// A request gate sent to an upstream and what came back, as the io thread saw it.
struct heard_answer {
    std::uint64_t request = 0; // the heard_request's seq; 0: gate's own upkeep
    std::chrono::system_clock::time_point at;
    std::string upstream, method;
    boost::json::object params;
    std::string reply; // the upstream's JSON-RPC response text; empty with a failure
    std::optional<std::string> failure_kind;
    int status = 0;
    std::string failure_message;
};

using heard_event = std::variant<heard_request, heard_answer>;

// Described for the actor messages that carry it (actors/message_inspection.hpp).
BOOST_DESCRIBE_STRUCT(heard_request, (),
                      (seq, at, session, version, caller, body, outcome, upstream))
BOOST_DESCRIBE_STRUCT(heard_answer, (),
                      (request, at, upstream, method, params, reply, failure_kind, status,
                       failure_message))

} // namespace gate::actors
