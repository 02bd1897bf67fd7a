// The configuration parser on arbitrary bytes: never crashes, and either yields a document
// or at least one error with a JSON pointer.
#include "config/load.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto r = gate::config::parse({reinterpret_cast<const char*>(data), size});
    if (!r.doc && r.errors.empty())
        std::abort();
    for (const auto& e : r.errors)
        if (!e.pointer.empty() && e.pointer.front() != '/')
            std::abort();
    return 0;
}
