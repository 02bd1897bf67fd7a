#include "actors/guards/endpoint_rotation.hpp"

namespace gate::actors {

endpoint_rotation::endpoint_rotation(std::size_t endpoints, std::chrono::milliseconds rest,
                                     bool active)
    : rest_(rest), active_(active), ejected_(endpoints, false), ejected_at_(endpoints) {}

bool endpoint_rotation::in_rotation(std::size_t endpoint, time_point now) const {
    return !ejected_[endpoint] || (!active_ && now >= ejected_at_[endpoint] + rest_);
}

std::vector<std::size_t> rotation_order(const std::vector<bool>& in_rotation, std::size_t& turn) {
    std::vector<std::size_t> order;
    std::vector<std::size_t> last;
    auto n = in_rotation.size();
    for (std::size_t k = 0; k < n; ++k) {
        auto e = (turn + k) % n;
        (in_rotation[e] ? order : last).push_back(e);
    }
    if (n > 0)
        turn = ((order.empty() ? turn : order.front()) + 1) % n;
    order.insert(order.end(), last.begin(), last.end());
    return order;
}

endpoint_rotation::plan endpoint_rotation::next(time_point now) {
    plan p;
    p.restored = restore_rested(now);
    std::vector<bool> in(ejected_.size());
    for (std::size_t e = 0; e < in.size(); ++e)
        in[e] = !ejected_[e];
    p.order = rotation_order(in, next_);
    return p;
}

std::vector<std::size_t> endpoint_rotation::restore_rested(time_point now) {
    std::vector<std::size_t> restored;
    for (std::size_t e = 0; e < ejected_.size(); ++e)
        if (ejected_[e] && in_rotation(e, now)) {
            ejected_[e] = false;
            restored.push_back(e);
        }
    return restored;
}

std::optional<endpoint_rotation::time_point> endpoint_rotation::next_rest_over() const {
    std::optional<time_point> soonest;
    if (active_)
        return soonest;
    for (std::size_t e = 0; e < ejected_.size(); ++e)
        if (ejected_[e] && (!soonest || ejected_at_[e] + rest_ < *soonest))
            soonest = ejected_at_[e] + rest_;
    return soonest;
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

} // namespace gate::actors
