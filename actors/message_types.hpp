// Every actor message named to CAF's type system, the way CAF 0.17 registers a type
// (actor_system_config::add_message_type): a message prints under its name and could be
// serialized by it (actors/message_inspection.hpp). Each program's configuration, and each
// test's, calls add_message_types once before its actor system starts.
#pragma once

#include <boost/core/type_name.hpp>
#include <caf/actor_system_config.hpp>

namespace gate::actors {

void add_message_types(caf::actor_system_config& cfg);

// A type is registered under its qualified C++ name.
template <class T> void add_message_type(caf::actor_system_config& cfg) {
    cfg.add_message_type<T>(boost::core::type_name<T>());
}

// An actor's own timers are declared in its .cpp, where no caller can name them
// (actors/own_timers.hpp): that .cpp registers them (add_message_types calls these).
void add_upstream_actor_timers(caf::actor_system_config& cfg);
void add_breaker_actor_timers(caf::actor_system_config& cfg);
void add_supervisor_timers(caf::actor_system_config& cfg);

} // namespace gate::actors
