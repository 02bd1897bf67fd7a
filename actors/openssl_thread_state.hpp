// Every actor system thread frees its own OpenSSL state (the random generators RAND_bytes
// makes per thread) before CAF counts it finished. CAF 0.17 detaches the thread of a
// detached actor and counts it done before the thread exits; OpenSSL's own cleanup at thread
// exit then raced the process's exit (OPENSSL_cleanup, at exit) and lost, leaving that
// thread's generators unreachable: a leak report at exit, now and then (gate-hooks' store
// actor makes ids with RAND_bytes).
#pragma once

#include <caf/thread_hook.hpp>
#include <openssl/crypto.h>

namespace gate::actors {

class openssl_thread_state final : public caf::thread_hook {
public:
    void init(caf::actor_system&) override {}
    void thread_started() override {}
    void thread_terminates() override { OPENSSL_thread_stop(); }
};

} // namespace gate::actors
