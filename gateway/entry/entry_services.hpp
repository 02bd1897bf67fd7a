// The entry's steps (gateway/pipeline/entry_steps.hpp) wired to the gateway they serve: what
// each asks of it is answered here, one forwarding call per operation.
#pragma once

#include "gateway/entry/gateway.hpp"
#include "gateway/pipeline/entry.hpp"

namespace gate::transport {

// Read (recording through gate --record's tap, when there is one), trace, session (the
// downstream session table and the fleet's store) and envelope.
pipeline::entry_steps make_entry_steps(gateway::impl& g);

} // namespace gate::transport
