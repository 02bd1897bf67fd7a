#include "actors/guards/tool_limits.hpp"

#include "policy/policy_engine.hpp"

#include <algorithm>

namespace gate::actors {

std::vector<tool_window_ref> tool_windows_for(const config::upstream& u, std::string_view tool,
                                              const std::string& principal) {
    std::vector<tool_window_ref> out;
    for (std::size_t i = 0; i < u.tool_limits.size(); ++i) {
        const auto& e = u.tool_limits[i];
        if (std::none_of(e.names.begin(), e.names.end(),
                         [&](const std::string& n) { return policy::glob_match(n, tool); }))
            continue;
        std::string scope = "tool:" + u.id + ":";
        for (const auto& n : e.names)
            policy::append_key_part(scope, n);
        if (e.requests_per_minute)
            out.push_back({i, scope, {}, *e.requests_per_minute});
        if (e.per_principal_per_minute && !principal.empty())
            out.push_back({i, scope, principal, *e.per_principal_per_minute});
    }
    return out;
}

sliding_window::batch tool_windows::take_batch(const std::string& scope,
                                               const std::string& principal,
                                               std::int64_t per_minute, time_point now,
                                               const slot_demand& demand) {
    if (principal.empty()) {
        auto it = everyone_.find(scope);
        if (it == everyone_.end() || it->second.limit() != per_minute)
            it = everyone_.insert_or_assign(scope, sliding_window(per_minute)).first;
        return it->second.take_batch(now, demand);
    }
    auto it = principals_.find(scope);
    if (it == principals_.end() || it->second.limit != per_minute)
        it = principals_
                 .insert_or_assign(
                     scope,
                     per_principal{per_minute, principal_windows(per_minute, max_principals_)})
                 .first;
    return it->second.windows.take_batch(principal, now, demand);
}

} // namespace gate::actors
