#include "protocol/shard_key.hpp"

#include "protocol/random_id.hpp"

#include <cstdint>

namespace gate::protocol {

std::size_t shard_of(std::string_view key, std::size_t count) {
    if (count <= 1)
        return 0;
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : key) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return static_cast<std::size_t>(h % count);
}

std::string random_id_in(const shard_place& place) {
    for (;;) {
        auto id = random_id();
        if (shard_of(id, place.count) == place.index)
            return id;
    }
}

} // namespace gate::protocol
