#include "policy/tenant_resolver.hpp"

#include "policy/subjects_select.hpp"

namespace gate::policy {

tenant_resolver::tenant_resolver(const std::vector<config::tenant>& tenants) : tenants_(tenants) {
    for (const auto& t : tenants_) {
        if (t.upstreams)
            visible_.emplace_back(std::in_place, t.upstreams->begin(), t.upstreams->end());
        else
            visible_.emplace_back();
    }
}

std::variant<tenant_resolver::none, std::size_t, tenant_resolver::ambiguous>
tenant_resolver::resolve(const principal& p) const {
    std::optional<std::size_t> found;
    for (std::size_t i = 0; i < tenants_.size(); ++i) {
        if (!subjects_select(tenants_[i].subjects, p))
            continue;
        if (found)
            return ambiguous{tenants_[*found].id, tenants_[i].id};
        found = i;
    }
    if (found)
        return *found;
    return none{};
}

bool tenant_resolver::sees(std::size_t i, std::string_view upstream) const {
    return !visible_[i] || visible_[i]->contains(upstream);
}

} // namespace gate::policy
