// An actor system on CAF's test_coordinator (virtual time, no threads, no sleeps), shared by
// the actor tests.
#pragma once

#include "actors/message_types.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <gtest/gtest.h>

namespace gate::test {

struct coordinator_fixture : ::testing::Test {
    static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
        cfg.set("scheduler.policy", caf::atom("testing"));
        cfg.set("logger.verbosity", caf::atom("quiet"));
        actors::add_message_types(cfg);
        return cfg;
    }
    caf::actor_system_config cfg;
    caf::actor_system sys{configure(cfg)};
    caf::scheduler::test_coordinator& sched =
        dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
};

} // namespace gate::test
