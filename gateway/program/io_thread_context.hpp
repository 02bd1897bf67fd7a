// An io thread's context whose pending work can be destroyed before what it points into.
// A coroutine still suspended when the host stops (a request cut at the drain bound, another
// thread's question to the first thread's key set) is destroyed with its io_context; its
// frame's destructors touch the gateway it ran in, and on another thread's question the
// first thread's. The host abandons every context's pending work while every gateway is still
// alive, then destroys the gateways, then the contexts (gateway_host.cpp, ~impl).
#pragma once

#include <boost/asio/io_context.hpp>

namespace gate::gateway::program {

class io_thread_context : public boost::asio::io_context {
public:
    using boost::asio::io_context::io_context;
    // Destroys every handler still queued or waiting on a socket or timer (and the frames they
    // own), without running them. Sockets and timers may still be destroyed afterwards, as
    // the context's own destructor does. Not while a thread runs the context.
    void abandon_pending() { shutdown(); }
};

} // namespace gate::gateway::program
