// A process whose detached actor used OpenSSL exits right after its actor system: every
// allocation OpenSSL made is freed by the time the process ends (actors/openssl_thread_state.hpp).
// The losing order of the race is forced: the actor's thread reaches OpenSSL's own thread-exit
// cleanup (a key destructor) only after OpenSSL's cleanup at exit has run. The process counts
// OpenSSL's allocations itself and exits 1 when any is left (LeakSanitizer, in the sanitized
// ctest, reports the same generators).
#include "actors/openssl_thread_state.hpp"

#include <atomic>
#include <caf/all.hpp>
#include <cstdio>
#include <cstdlib>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>

namespace {

std::atomic<long> openssl_blocks{0};        // OpenSSL's allocations not freed yet
std::atomic<bool> armed{false};             // the actor's thread used OpenSSL
std::atomic<bool> openssl_cleaned{false};   // OPENSSL_cleanup has run
std::atomic<bool> thread_keys_freed{false}; // the actor's thread is past its key destructors
// Thread keys' destructors run in the order the keys were made, after C++'s thread_local
// destructors (where CAF counts the thread done): one made before OpenSSL's, one after.
pthread_key_t first_key, last_key;

void* counted_malloc(std::size_t n, const char*, int) {
    void* p = std::malloc(n);
    if (p)
        ++openssl_blocks;
    return p;
}
void* counted_realloc(void* p, std::size_t n, const char*, int) {
    void* q = std::realloc(p, n);
    if (!p && q)
        ++openssl_blocks;
    return q;
}
void counted_free(void* p, const char*, int) {
    if (p)
        --openssl_blocks;
    std::free(p);
}

// Registered first: runs last, after OpenSSL's cleanup and the actor's thread's exit.
void count_what_is_left() {
    if (openssl_blocks != 0) {
        std::fprintf(stderr, "%ld OpenSSL allocation(s) left at exit\n", openssl_blocks.load());
        std::_Exit(1);
    }
}

// Registered before OpenSSL starts: runs after OpenSSL's cleanup.
void after_openssl_cleanup() {
    openssl_cleaned = true;
    openssl_cleaned.notify_all();
    if (armed)
        thread_keys_freed.wait(false);
}

// `size`: an argument, since CAF 0.17 spawns a function of none by dereferencing an empty
// tuple (undefined behaviour that UBSan reports).
caf::behavior random_maker(caf::event_based_actor*, int size) {
    return {[size](int) {
        pthread_setspecific(first_key, &first_key);
        pthread_setspecific(last_key, &last_key);
        armed = true;
        unsigned char bytes[64];
        RAND_bytes(bytes, size);
    }};
}

} // namespace

int main() {
    if (CRYPTO_set_mem_functions(counted_malloc, counted_realloc, counted_free) != 1)
        return 2;
    std::atexit(count_what_is_left);
    std::atexit(after_openssl_cleanup);
    pthread_key_create(&first_key, [](void*) { openssl_cleaned.wait(false); });
    unsigned char bytes[8];
    if (RAND_bytes(bytes, sizeof bytes) != 1) // OpenSSL starts on the main thread, as in gate
        std::_Exit(2);
    pthread_key_create(&last_key, [](void*) {
        thread_keys_freed = true;
        thread_keys_freed.notify_all();
    });
    caf::actor_system_config cfg;
    cfg.set("scheduler.max-threads", static_cast<size_t>(1));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    cfg.add_thread_hook<gate::actors::openssl_thread_state>();
    caf::actor_system sys{cfg};
    auto maker = sys.spawn<caf::detached>(random_maker, 8);
    caf::anon_send(maker, 1);
    caf::anon_send_exit(maker, caf::exit_reason::user_shutdown);
    sys.await_all_actors_done();
    return 0;
}
