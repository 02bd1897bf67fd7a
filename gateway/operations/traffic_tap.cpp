#include "gateway/operations/traffic_tap.hpp"

#include <boost/asio/post.hpp>
#include <caf/send.hpp>

namespace gate::gateway {

traffic_tap::traffic_tap(boost::asio::io_context& io, actors::recorder_actor sink,
                         actors::record_backlog backlog,
                         std::shared_ptr<actors::delivery_tally> tally, std::int64_t capacity)
    : io_(io), sink_(std::move(sink)), backlog_(std::move(backlog)), tally_(std::move(tally)),
      capacity_(capacity) {}

void traffic_tap::heard(actors::heard_event e) {
    pending_.push_back(std::move(e));
    if (posted_)
        return;
    posted_ = true;
    boost::asio::post(io_, [self = weak_from_this()] {
        if (auto tap = self.lock())
            tap->feed();
    });
}

void traffic_tap::feed() {
    posted_ = false;
    if (pending_.empty())
        return;
    auto n = static_cast<std::int64_t>(pending_.size());
    // A recorder that fell behind (a slow disk) loses this turn's events, counted, rather
    // than holding memory without bound.
    if (backlog_->load(std::memory_order_relaxed) + n > capacity_) {
        tally_->dropped.fetch_add(n, std::memory_order_relaxed);
        pending_.clear();
        return;
    }
    backlog_->fetch_add(n, std::memory_order_relaxed);
    caf::anon_send(sink_, actors::record_batch{std::exchange(pending_, {})});
}

} // namespace gate::gateway
