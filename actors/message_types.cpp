#include "actors/message_types.hpp"

#include "actors/message_list.hpp"

#include <boost/mp11/algorithm.hpp>

namespace gate::actors {

namespace {

// Every message a typed interface accepts is in the list: a message added to an actor's
// interface and not here fails to compile.
template <class Signature> struct inputs_of;
template <class... In, class Out>
struct inputs_of<caf::typed_mpi<caf::detail::type_list<In...>, Out>> {
    using type = boost::mp11::mp_list<In...>;
};
template <class Handle> struct interface_inputs;
template <class... Signatures> struct interface_inputs<caf::typed_actor<Signatures...>> {
    using type = boost::mp11::mp_append<typename inputs_of<Signatures>::type...>;
};
template <class Handle>
inline constexpr bool all_listed = boost::mp11::mp_all_of_q<
    typename interface_inputs<Handle>::type,
    boost::mp11::mp_bind_front<boost::mp11::mp_contains, message_list>>::value;

static_assert(all_listed<router_actor>);
static_assert(all_listed<bridge_keeper_actor>);
static_assert(all_listed<bridged_session_actor>);
static_assert(all_listed<upstream_actor>);
static_assert(all_listed<breaker_actor>);
static_assert(all_listed<limiter_actor>);
static_assert(all_listed<budget_keeper_actor>);
static_assert(all_listed<task_keeper_actor>);
static_assert(all_listed<audit_actor>);
static_assert(all_listed<span_sink_actor>);
static_assert(all_listed<recorder_actor>);
static_assert(all_listed<supervisor_actor>);

} // namespace

void add_message_types(caf::actor_system_config& cfg) {
    boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, message_list>>(
        [&](auto type) { add_message_type<typename decltype(type)::type>(cfg); });
    add_upstream_actor_timers(cfg);
    add_breaker_actor_timers(cfg);
    add_supervisor_timers(cfg);
}

} // namespace gate::actors
