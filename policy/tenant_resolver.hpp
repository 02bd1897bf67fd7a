// Tenants (spec: Tenants section), compiled once per snapshot: which tenant a verified
// principal belongs to (from its claims only: a tenant never travels beside a token), and
// which upstreams each tenant sees. A principal selected by two tenants is refused rather
// than placed by the order of the document (docs/configuration.md, Tenants).
#pragma once

#include "config/model.hpp"
#include "policy/principal.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::policy {

class tenant_resolver {
public:
    explicit tenant_resolver(const std::vector<config::tenant>& tenants);

    struct none {};
    struct ambiguous {
        std::string first, second; // two of the tenants that select the principal
    };
    // The index of the principal's tenant, none, or the two that both claim it.
    std::variant<none, std::size_t, ambiguous> resolve(const principal& p) const;

    const config::tenant& tenant(std::size_t i) const { return tenants_[i]; }
    // Whether tenant `i` sees the upstream configured as `upstream` (`upstreams`, else all).
    bool sees(std::size_t i, std::string_view upstream) const;
    std::size_t size() const { return tenants_.size(); }

private:
    std::vector<config::tenant> tenants_;
    std::vector<std::optional<std::set<std::string, std::less<>>>> visible_;
};

} // namespace gate::policy
