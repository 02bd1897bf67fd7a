#include "transport/keeper_batch.hpp"

#include <functional>
#include <string_view>
#include <utility>

namespace gate::transport {

namespace {

std::uint64_t key(std::string_view a, std::string_view b) {
    std::hash<std::string_view> h;
    auto x = h(a);
    return x ^ (h(b) + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2));
}

} // namespace

void keeper_batch::keep(bridge_event e) {
    events_.emplace_back(std::move(e));
    ++kept_;
}

bool keeper_batch::use(std::string session, std::string upstream, std::optional<std::size_t> at) {
    auto k = key(session, upstream);
    if (auto it = used_.find(k); it != used_.end()) {
        const auto& told = std::get<bridge_used>(*events_[it->second]);
        if (told.session == session && told.upstream == upstream)
            return false;
    }
    std::size_t index = at.value_or(events_.size());
    bridge_used u{std::move(session), std::move(upstream)};
    if (at)
        events_[index].emplace(std::move(u));
    else
        keep(std::move(u));
    used_[k] = index;
    return true;
}

void keeper_batch::add(bridge_event e) {
    if (auto* used = std::get_if<bridge_used>(&e)) {
        use(std::move(used->session), std::move(used->upstream), std::nullopt);
        return;
    }
    if (auto* started = std::get_if<bridge_call_started>(&e)) {
        open_calls_[key(started->session, started->client_id)] = events_.size();
        keep(std::move(e));
        return;
    }
    if (auto* ended = std::get_if<bridge_call_ended>(&e)) {
        auto it = open_calls_.find(key(ended->session, ended->client_id));
        auto* start = it == open_calls_.end() || !events_[it->second]
                          ? nullptr
                          : std::get_if<bridge_call_started>(&*events_[it->second]);
        if (!start || start->session != ended->session || start->client_id != ended->client_id) {
            keep(std::move(e)); // started in an earlier batch: the keeper holds it
            return;
        }
        auto at = it->second;
        open_calls_.erase(it);
        // The start becomes the session's use, unless this batch tells that use already.
        if (!use(std::move(start->session), std::move(start->upstream), at)) {
            events_[at].reset();
            --kept_;
        }
        return;
    }
    // Anything else (a subscription, a stream, a session or an upstream ending) is kept in
    // its place, and nothing before it is folded into anything after it.
    open_calls_.clear();
    used_.clear();
    keep(std::move(e));
}

std::vector<bridge_event> keeper_batch::take() {
    std::vector<bridge_event> out;
    out.reserve(kept_);
    for (auto& e : events_)
        if (e)
            out.push_back(std::move(*e));
    events_.clear();
    open_calls_.clear();
    used_.clear();
    kept_ = 0;
    return out;
}

} // namespace gate::transport
