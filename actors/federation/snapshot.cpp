#include "actors/federation/snapshot.hpp"

namespace gate::actors {

namespace {
protocol::name_codec codec_for(const config::document& doc) {
    std::vector<std::optional<std::string>> namespaces;
    namespaces.reserve(doc.upstreams.size());
    for (const auto& u : doc.upstreams)
        namespaces.push_back(u.namespace_);
    return protocol::name_codec(doc.routing.namespace_separator, std::move(namespaces),
                                doc.routing.max_name_length);
}
} // namespace

std::shared_ptr<const snapshot> make_snapshot(std::shared_ptr<const config::document> doc,
                                              std::uint64_t version) {
    auto codec = codec_for(*doc);
    std::unordered_map<std::string, std::size_t> by_id;
    for (std::size_t i = 0; i < doc->upstreams.size(); ++i)
        by_id.emplace(doc->upstreams[i].id, i);
    std::shared_ptr<const policy::policy_engine> policy;
    if (doc->policy)
        policy = std::make_shared<const policy::policy_engine>(*doc->policy);
    std::shared_ptr<const policy::tenant_resolver> tenants;
    if (!doc->tenants.empty())
        tenants = std::make_shared<const policy::tenant_resolver>(doc->tenants);
    return std::make_shared<const snapshot>(snapshot{version, std::move(doc), std::move(codec),
                                                     std::move(by_id), std::move(policy),
                                                     std::move(tenants)});
}

} // namespace gate::actors
