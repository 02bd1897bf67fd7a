// The span sink actor (spec: Traces, "Export is batched off the request path"): receives the
// finished spans of each recorded request and exports them to the OTLP/HTTP collector in
// batches (actors/sinks/batcher decides; the io thread posts). Sizes follow the OpenTelemetry
// batch span processor's defaults (2048 spans buffered, 512 per export) with a 1 s linger
// instead of 5 s, so traces show up while someone is looking (docs/operations.md, Traces).
#pragma once

#include "actors/message_inspection.hpp"
#include "actors/sinks/batch_delivery.hpp"
#include "config/model.hpp"

#include <boost/describe/class.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <memory>
#include <string>
#include <vector>

namespace gate::actors {

// The spans of one request, each an OTLP JSON span object (protocol/otlp_json).
struct span_batch {
    std::vector<std::string> spans;
};

using span_sink_actor = caf::typed_actor<caf::reacts_to<span_batch>, caf::reacts_to<batch_close>,
                                         caf::reacts_to<batch_flush>, caf::reacts_to<batch_settled>,
                                         caf::reacts_to<batch_wake>>;

struct span_outlet {
    batch_poster post;
    std::string version; // service.version of the exported resource
    std::shared_ptr<delivery_tally> tally = std::make_shared<delivery_tally>();
    batcher::limits limits = {2048, 512, std::chrono::seconds(1), std::chrono::milliseconds(500),
                              std::chrono::seconds(30)};
    std::chrono::steady_clock::duration close_grace = std::chrono::seconds(3);
};

// Null without a tracing section.
span_sink_actor spawn_span_sink(caf::actor_system& sys, const std::optional<config::tracing>& cfg,
                                const span_outlet& outlet);

BOOST_DESCRIBE_STRUCT(span_batch, (), (spans))

} // namespace gate::actors
