// The recorder actor (gate --record FILE; docs/recording.md): what the io thread heard in one
// turn of its loop arrives as one message; the actor parses, redacts and formats each event
// (protocol/recording) and appends it to the file with its size cap and rotation
// (record_file), off the request path. Without --record there is no recorder and the io
// thread does nothing for it.
//
// Bounded like the audit sink: the io thread refuses (and counts) events when `capacity` are
// already waiting, so a slow disk costs a bounded amount of memory and never a request.
#pragma once

#include "actors/message_inspection.hpp"
#include "actors/sinks/batch_delivery.hpp"
#include "actors/sinks/heard_traffic.hpp"

#include <atomic>
#include <boost/describe/class.hpp>
#include <boost/json/object.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::actors {

struct record_batch {
    std::vector<heard_event> events;
};

using recorder_actor = caf::typed_actor<caf::reacts_to<record_batch>, caf::reacts_to<batch_flush>>;

struct record_target {
    std::string path;
    std::uint64_t max_bytes = 0;
};

// Events offered but not yet written, shared by the io thread's tap and the actor.
using record_backlog = std::shared_ptr<std::atomic<std::int64_t>>;

// Opens the file (throws std::runtime_error saying why it cannot) and spawns the actor. The
// tally counts lines written (delivered) and events dropped (a full backlog, a line over the
// cap, a disk that refused it).
recorder_actor spawn_recorder(caf::actor_system& sys, const record_target& target,
                              record_backlog backlog, std::shared_ptr<delivery_tally> tally);

BOOST_DESCRIBE_STRUCT(record_batch, (), (events))

} // namespace gate::actors
