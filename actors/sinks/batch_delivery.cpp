#include "actors/sinks/batch_delivery.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace gate::actors {

batch_post batch_targets::make_post(caf::weak_actor_ptr self, std::size_t i,
                                    batcher::batch b) const {
    const auto& t = list[i];
    batch_post p;
    p.url = t.url;
    p.headers = t.headers;
    if (!t.id_header.empty())
        p.headers.emplace_back(t.id_header, b.id);
    p.body = t.head + std::move(b.body) + t.tail;
    // Held by the io thread, maybe past the actor (and its system): a weak reference.
    p.reply = reply_to<std::pair<batcher::result, std::string>>(
        [self = std::move(self), i](std::optional<std::pair<batcher::result, std::string>> r) {
            auto strong = caf::actor_cast<caf::strong_actor_ptr>(self);
            if (!strong)
                return;
            batch_settled m{i, batcher::result::failed, "no answer"};
            if (r) {
                m.result = r->first;
                m.detail = std::move(r->second);
            }
            caf::anon_send(caf::actor_cast<caf::actor>(strong), std::move(m));
        });
    return p;
}

void batch_targets::settle(const batch_settled& m, time_point now, delivery_tally& tally) {
    auto& t = list.at(m.target);
    auto dropped = t.buffer.dropped();
    auto delivered = t.buffer.delivered();
    auto change = t.buffer.settle(m.result, now);
    tally.dropped.fetch_add(t.buffer.dropped() - dropped);
    tally.delivered.fetch_add(t.buffer.delivered() - delivered);
    if (m.result == batcher::result::failed)
        tally.failures.fetch_add(1);
    using tr = batcher::transition;
    if (change == tr::outage_began)
        spdlog::warn("{}: delivery failed ({}); retrying with backoff, {} buffered (said once "
                     "per outage)",
                     t.what, m.detail, t.buffer.waiting());
    else if (change == tr::recovered)
        spdlog::info("{}: delivering again", t.what);
    else if (change == tr::refused)
        spdlog::error("{}: the receiver refused a batch ({}); it is dropped, since sending it "
                      "again would be refused again",
                      t.what, m.detail);
}

void delivery_shell::give_up() {
    auto left = targets.waiting();
    if (left > 0)
        spdlog::error("{} replaced by a reload: {} item(s) it could not deliver within the grace "
                      "period are dropped",
                      what, left);
    tally->dropped.fetch_add(left);
}

void batch_targets::close() {
    for (auto& t : list)
        t.buffer.close();
}

bool batch_targets::idle() const {
    for (const auto& t : list)
        if (!t.buffer.idle())
            return false;
    return true;
}

std::int64_t batch_targets::waiting() const {
    std::int64_t n = 0;
    for (const auto& t : list)
        n += static_cast<std::int64_t>(t.buffer.waiting());
    return n;
}

} // namespace gate::actors
