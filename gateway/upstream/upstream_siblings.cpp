#include "gateway/upstream/upstream_siblings.hpp"

#include "gateway/upstream/upstream_client.hpp"

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>

namespace gate::gateway {

void upstream_siblings::join(std::weak_ptr<upstream_client> client,
                             boost::asio::any_io_executor ex) {
    std::lock_guard lock(mutex_);
    std::erase_if(clients_, [](const sibling& s) { return s.client.expired(); });
    const void* address = client.lock().get();
    clients_.push_back({std::move(client), address, std::move(ex)});
}

void upstream_siblings::post_to_others(const void* from,
                                       const std::function<void(upstream_client&)>& lesson) {
    for (const auto& s : clients_)
        if (s.address != from)
            boost::asio::post(s.ex, [client = s.client, lesson] {
                if (auto c = client.lock()) // on its own thread, where it is released too
                    lesson(*c);
            });
}

std::shared_ptr<const boost::json::object> upstream_siblings::identity() const {
    std::lock_guard lock(mutex_);
    return identity_;
}

std::pair<std::shared_ptr<upstream_credential>, boost::asio::any_io_executor>
upstream_siblings::credential_keeper(std::shared_ptr<upstream_credential> mine,
                                     boost::asio::any_io_executor ex) {
    std::lock_guard lock(mutex_);
    // The first thread's in practice: it makes its clients first, at start and at a reload,
    // before the others adopt the same view.
    if (!credentials_) {
        credentials_ = std::move(mine);
        credentials_ex_ = std::move(ex);
    }
    return {credentials_, credentials_ex_};
}

namespace {

std::atomic<std::uint64_t> instructions_changes{0};

// Whether `next` says other instructions than `before` (null: none known): a handshake that
// differs in anything else (its version, a per-caller answer) leaves what was composed of them.
bool other_instructions(const boost::json::object* before, const boost::json::object& next) {
    const auto* was = before ? before->if_contains("instructions") : nullptr;
    const auto* is = next.if_contains("instructions");
    return was && is ? *was != *is : was != is;
}

} // namespace

std::uint64_t instructions_changed() {
    return instructions_changes.load(std::memory_order_acquire);
}

void learn_identity(upstream_state& state, boost::json::object identity) {
    auto* siblings = state.siblings.get();
    if (!siblings) {
        if (other_instructions(state.identity.get(), identity))
            instructions_changes.fetch_add(1, std::memory_order_release);
        state.identity = std::make_shared<const boost::json::object>(std::move(identity));
        return;
    }
    // Kept and told under one lock, so what the siblings keep and what they are told last
    // agree; an answer they know already (each session's handshake gives one) is not told,
    // and the copy they keep serves this client too.
    std::lock_guard lock(siblings->mutex_);
    if (siblings->identity_ && *siblings->identity_ == identity) {
        state.identity = siblings->identity_;
        return;
    }
    bool instructions = other_instructions(siblings->identity_.get(), identity);
    auto told = std::make_shared<const boost::json::object>(std::move(identity));
    state.identity = told;
    siblings->identity_ = told;
    if (instructions) // after the store it tells of
        instructions_changes.fetch_add(1, std::memory_order_release);
    siblings->post_to_others(state.owner.lock().get(),
                             [told](upstream_client& c) { c.take_identity(told); });
}

std::shared_ptr<upstream_siblings> shared_upstreams::siblings_for(const config::upstream& cfg) {
    std::lock_guard lock(mutex_);
    auto& kept = by_id_[cfg.id];
    std::erase_if(kept, [](const auto& k) { return k.expired(); });
    for (const auto& siblings : kept)
        if (auto held = siblings.lock(); held && *held->entry == cfg) // none may be going
            return held;
    auto made = std::make_shared<upstream_siblings>(cfg);
    kept.emplace_back(made);
    return made;
}

} // namespace gate::gateway
