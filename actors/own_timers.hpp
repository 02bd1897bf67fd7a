// An actor's own timers, kept off its typed interface. A timer's message type is declared in
// the actor's .cpp (no caller can name it, so none can send it); the actor schedules it to
// itself through its untyped handle on the actor clock (so CAF's test_coordinator drives it in
// virtual time), and handles it in its default handler, which sees what the typed behavior
// does not match. Anything else that reaches the default handler is dropped as CAF drops an
// unexpected message.
#pragma once

#include <algorithm>
#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/message_handler.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>
#include <chrono>
#include <utility>

namespace gate::actors {

// `timer` reaches `self` after `delay` (at once when `delay` is not positive).
template <class Self, class Rep, class Period, class Timer>
void start_own_timer(Self* self, std::chrono::duration<Rep, Period> delay, Timer timer) {
    caf::delayed_anon_send(caf::actor_cast<caf::actor>(self),
                           std::max(delay, std::chrono::duration<Rep, Period>::zero()),
                           std::move(timer));
}

// Installs the handlers of `self`'s own timers (one per timer message type).
template <class Self, class... Handlers> void handle_own_timers(Self* self, Handlers... handlers) {
    self->set_default_handler([own = caf::message_handler{std::move(handlers)...}](
                                  caf::scheduled_actor* actor,
                                  caf::message_view& x) mutable -> caf::result<caf::message> {
        if (own(x.content()))
            return caf::message{};
        return caf::print_and_drop(actor, x);
    });
}

} // namespace gate::actors
