// Key set parsing on arbitrary text: never crashes; a set it accepts has a usable key, and
// each key answers fits() and verify() for every algorithm without crashing.
#include "protocol/jose/jwk.hpp"

#include <cstdint>
#include <cstdlib>

namespace jose = gate::protocol::jose;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = jose::parse_key_set(text);
    auto* set = std::get_if<jose::key_set>(&parsed);
    if (!set)
        return 0;
    if (set->keys.empty())
        std::abort();
    for (const auto& k : set->keys)
        for (auto a = 0; a <= static_cast<int>(jose::algorithm::eddsa); ++a)
            if (k.fits(static_cast<jose::algorithm>(a)) &&
                k.verify(static_cast<jose::algorithm>(a), "input", "signature"))
                std::abort();
    return 0;
}
