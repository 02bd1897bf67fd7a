#include "actors/federation/task_registry.hpp"

#include <iterator>

namespace gate::actors {

void task_registry::pin(const std::string& task_id, std::uint64_t principal, std::string upstream,
                        time_point now) {
    records_[{task_id, principal}] = record{std::move(upstream), now + lifetime};
}

void task_registry::locate(const std::string& task_id, std::string upstream, time_point now) {
    located_[task_id] = record{std::move(upstream), now + lifetime};
}

task_owner task_registry::find(const std::string& task_id, std::uint64_t principal,
                               time_point now) const {
    task_owner out;
    // Records of one id are adjacent (ordered by id, then principal).
    for (auto it = records_.lower_bound({task_id, 0});
         it != records_.end() && it->first.first == task_id; ++it) {
        if (it->second.expires <= now)
            continue;
        if (it->first.second == principal)
            return task_owner{task_owner::kind::owned, it->second.upstream};
        out.what = task_owner::kind::foreign;
    }
    if (out.what == task_owner::kind::foreign)
        return out;
    if (auto it = located_.find(task_id); it != located_.end() && it->second.expires > now)
        return task_owner{task_owner::kind::located, it->second.upstream};
    return out;
}

std::size_t task_registry::expire(time_point now) {
    auto expired = [now](const auto& r) { return r.second.expires <= now; };
    return std::erase_if(records_, expired) + std::erase_if(located_, expired);
}

} // namespace gate::actors
