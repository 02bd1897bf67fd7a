// Which io thread owns what a client names again in a later request (docs/io-threads.md): a
// downstream session, a parked call's requestState, a login's state. The key itself says it,
// so any thread routes a request without asking the others: gate mints each key so that it
// hashes to the thread that keeps what it names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gate::protocol {

// This io thread among `count` (index < count).
struct shard_place {
    std::size_t index = 0;
    std::size_t count = 1;
};

// The thread that keeps what `key` names (FNV-1a of its bytes, modulo `count`): a key gate did
// not mint names a thread all the same, which then does not know it.
std::size_t shard_of(std::string_view key, std::size_t count);

// A random_id() that names `place`'s thread (drawn again until it does: `count` draws on
// average, each 128 bits from the CSPRNG).
std::string random_id_in(const shard_place& place);

} // namespace gate::protocol
