// What a discovery source serves, on arbitrary text: merging never crashes; a document it
// accepts keeps every configured upstream first and marks each served one as discovered, one it
// refuses says why, and an entry the containment leaves out says why and is not in the result.
#include "config/discovery_merge.hpp"

#include <cstdint>
#include <cstdlib>

namespace {
const std::shared_ptr<const gate::config::document>& configured() {
    static const auto doc =
        gate::config::parse(
            R"({"upstreams":[{"id":"home","url":"http://127.0.0.1:1/mcp","namespace":"h"}],
        "discovery":{"url":"http://127.0.0.1:2/registry","allowedStrategies":["static"],"allowedSecretRefs":["GRANTED"],
        "allowedCredentialHosts":["127.0.0.1"]}})")
            .doc;
    return doc;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto& base = configured();
    if (!base)
        std::abort();
    std::string_view served(reinterpret_cast<const char*>(data), size);
    auto merged = gate::config::merge_discovered(*base, served);
    if (!merged.doc) {
        if (merged.errors.empty())
            std::abort();
        return 0;
    }
    if (merged.doc->upstreams.empty() || merged.doc->upstreams[0].id != "home" ||
        merged.doc->upstreams[0].discovered)
        std::abort();
    for (std::size_t i = 1; i < merged.doc->upstreams.size(); ++i)
        if (!merged.doc->upstreams[i].discovered)
            std::abort();
    for (const auto& r : merged.refused) {
        if (r.errors.empty())
            std::abort();
        for (const auto& u : merged.doc->upstreams)
            if (u.id == r.id)
                std::abort();
    }
    return 0;
}
