#include "actors/endpoint_rotation.hpp"

namespace gate {

endpoint_rotation::endpoint_rotation(std::size_t endpoints, std::chrono::milliseconds rest,
                                     bool active)
    : rest_(rest), active_(active), ejected_(endpoints, false), ejected_at_(endpoints) {}

bool endpoint_rotation::in_rotation(std::size_t endpoint, time_point now) const {
    return !ejected_[endpoint] || (!active_ && now >= ejected_at_[endpoint] + rest_);
}

endpoint_rotation::plan endpoint_rotation::next(time_point now) {
    plan p;
    std::vector<std::size_t> last;
    auto n = ejected_.size();
    for (std::size_t k = 0; k < n; ++k) {
        auto e = (next_ + k) % n;
        if (ejected_[e] && in_rotation(e, now)) {
            ejected_[e] = false;
            p.restored.push_back(e);
        }
        (ejected_[e] ? last : p.order).push_back(e);
    }
    if (n > 0)
        next_ = ((p.order.empty() ? next_ : p.order.front()) + 1) % n;
    p.order.insert(p.order.end(), last.begin(), last.end());
    return p;
}

bool endpoint_rotation::eject(std::size_t endpoint, time_point now) {
    bool changed = !ejected_[endpoint];
    ejected_[endpoint] = true;
    ejected_at_[endpoint] = now;
    return changed;
}

bool endpoint_rotation::restore(std::size_t endpoint) {
    bool changed = ejected_[endpoint];
    ejected_[endpoint] = false;
    return changed;
}

} // namespace gate
