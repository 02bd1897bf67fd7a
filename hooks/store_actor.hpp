// The store's own thread. Every database call runs here, one at a time, so the io thread
// never blocks on disk; a coroutine hands over a job and resumes with its result.
#pragma once

#include "actors/bridge.hpp"
#include "actors/message_inspection.hpp"
#include "hooks/store.hpp"

#include <boost/describe/class.hpp>
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <functional>
#include <memory>

namespace gate::hooks {

struct store_job {
    std::function<void(store&)> run;
};

// A detached actor (a thread of its own) owning `db`.
caf::actor spawn_store_actor(caf::actor_system& sys, std::shared_ptr<store> db);

// Runs `f(store&)` on the store actor; nullopt when it threw (logged) or the actor is gone.
template <class F>
auto on_store(const caf::actor& actor, F f)
    -> boost::asio::awaitable<std::optional<std::invoke_result_t<F, store&>>> {
    using T = std::invoke_result_t<F, store&>;
    co_return co_await actors::ask<T>(actor, [&](actors::reply_to<T> reply) {
        return store_job{[f = std::move(f), reply](store& s) { reply(f(s)); }};
    });
}

BOOST_DESCRIBE_STRUCT(store_job, (), (run))

// CAF finds a message's inspect and to_string by its namespace (actors/message_inspection.hpp).
using actors::inspect;
using actors::to_string;

} // namespace gate::hooks
