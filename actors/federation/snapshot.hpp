// One immutable view of the configuration and the indexes derived from it. A request loads
// the current snapshot once at entry and keeps it for its whole life.
#pragma once

#include "config/model.hpp"
#include "policy/policy_engine.hpp"
#include "policy/tenant_resolver.hpp"
#include "protocol/name_codec.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

namespace gate::actors {

struct snapshot {
    std::uint64_t version;
    std::shared_ptr<const config::document> doc;
    protocol::name_codec codec;
    std::unordered_map<std::string, std::size_t> upstream_by_id;
    // The policy, compiled once per snapshot; null when the document has none (authorization
    // is not enforced: docs/configuration.md).
    std::shared_ptr<const policy::policy_engine> policy;
    // The tenants, compiled once per snapshot; null when the document configures none.
    std::shared_ptr<const policy::tenant_resolver> tenants;

    const config::upstream& upstream(std::size_t i) const { return doc->upstreams[i]; }
    std::size_t size() const { return doc->upstreams.size(); }
};

std::shared_ptr<const snapshot> make_snapshot(std::shared_ptr<const config::document> doc,
                                              std::uint64_t version);

} // namespace gate::actors
