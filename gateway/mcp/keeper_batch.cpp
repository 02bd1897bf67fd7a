#include "gateway/mcp/keeper_batch.hpp"

#include <functional>
#include <string_view>
#include <utility>

namespace gate::gateway {

namespace {

std::uint64_t key(std::string_view a, std::string_view b) {
    std::hash<std::string_view> h;
    auto x = h(a);
    return x ^ (h(b) + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2));
}

} // namespace

keeper_batch::open_call::~open_call() {
    if (batch_)
        batch_->unlink(*this);
}

keeper_batch::~keeper_batch() {
    // Calls that outlive the batch (frames destroyed after it at shutdown) find it gone.
    for (auto* c = first_; c; c = c->next_)
        c->batch_ = nullptr;
}

void keeper_batch::unlink(open_call& call) {
    (call.prev_ ? call.prev_->next_ : first_) = call.next_;
    (call.next_ ? call.next_->prev_ : last_) = call.prev_;
    if (!call.told_)
        --untold_;
    call.batch_ = nullptr;
    call.prev_ = call.next_ = nullptr;
}

void keeper_batch::started(open_call& call, const std::string& session,
                           const std::string& client_id, const std::string& upstream,
                           std::int64_t upstream_id) {
    call.upstream_id_ = upstream_id;
    if (call.batch_) {
        // Sent again under a new id: the keeper learns the new one if it holds the old.
        if (call.told_)
            keep(actors::bridge_call_started{session, client_id, upstream, upstream_id});
        return;
    }
    call.batch_ = this;
    call.session_ = &session;
    call.client_id_ = &client_id;
    call.upstream_ = &upstream;
    call.told_ = false;
    call.prev_ = last_;
    call.next_ = nullptr;
    (last_ ? last_->next_ : first_) = &call;
    last_ = &call;
    ++untold_;
}

void keeper_batch::ended(open_call& call) {
    if (!call.batch_)
        return;
    bool told = call.told_;
    const auto& session = *call.session_;
    const auto& upstream = *call.upstream_;
    const auto& client_id = *call.client_id_;
    unlink(call);
    if (told)
        keep(actors::bridge_call_ended{session, client_id});
    else
        use(session, upstream);
}

void keeper_batch::tell_open_calls() {
    if (untold_ == 0)
        return;
    for (auto* c = first_; c; c = c->next_)
        if (!c->told_) {
            keep(actors::bridge_call_started{*c->session_, *c->client_id_, *c->upstream_,
                                             c->upstream_id_});
            c->told_ = true;
        }
    untold_ = 0;
}

void keeper_batch::keep(actors::bridge_event e) {
    events_.emplace_back(std::move(e));
    ++kept_;
}

void keeper_batch::use(const std::string& session, const std::string& upstream) {
    auto k = key(session, upstream);
    if (auto it = used_.find(k); it != used_.end()) {
        const auto* told = std::get_if<actors::bridge_used>(&events_[it->second]);
        if (told && told->session == session && told->upstream == upstream)
            return;
    }
    used_[k] = events_.size();
    keep(actors::bridge_used{session, upstream});
}

void keeper_batch::add(actors::bridge_event e) {
    if (auto* used = std::get_if<actors::bridge_used>(&e)) {
        use(used->session, used->upstream);
        return;
    }
    // Anything else (a subscription, a stream, a session or an upstream ending) is kept in
    // its place: the calls open before it reach the keeper before it, and no use after it is
    // folded into one before it.
    tell_open_calls();
    used_.clear();
    keep(std::move(e));
}

std::vector<actors::bridge_event> keeper_batch::take() {
    tell_open_calls();
    auto out = std::move(events_);
    events_.clear();
    used_.clear();
    kept_ = 0;
    return out;
}

} // namespace gate::gateway
