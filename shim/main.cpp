#include "shim/app.hpp"

// With jemalloc (release builds), a background thread returns freed memory to the system
// within its decay time (10 s) even when the shim goes quiet: what a session held toward a
// client that stopped reading, or a large answer, does not stay resident after it is freed.
// Without jemalloc this variable is read by nobody.
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "background_thread:true,dirty_decay_ms:1000";
}

int main(int argc, char** argv) {
    return gate::shim::run_shim(argc, argv);
}
