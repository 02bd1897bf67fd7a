#include "gateway/operations/traffic_history.hpp"

#include <algorithm>

namespace gate::gateway {

namespace {

// Client-chosen text (a method, a name) is kept short: the console shows it, nothing else.
constexpr std::size_t kept_chars = 200;

void keep(std::string& into, std::string_view text) {
    into.assign(text.substr(0, kept_chars)); // reuses the slot's capacity
}

// The middle of the bin where the count reaches fraction q of `total`, in milliseconds.
std::optional<double>
quantile_ms(const std::array<std::uint64_t, traffic_history::latency_bins>& latency,
            std::uint64_t total, double q) {
    if (total == 0)
        return std::nullopt;
    auto wanted = static_cast<std::uint64_t>(q * static_cast<double>(total));
    if (wanted == 0)
        wanted = 1;
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < latency.size(); ++b) {
        seen += latency[b];
        if (seen >= wanted) {
            auto low = traffic_history::bin_floor_us(b);
            auto high = b < 4 ? low : traffic_history::bin_ceiling_us(b);
            return static_cast<double>(low + high) / 2000.0;
        }
    }
    return std::nullopt;
}

} // namespace

traffic_history::traffic_history() {
    series_.push_back(series{}); // unrouted, named ""
    by_id_.emplace("", unrouted);
}

traffic_history::traffic_history(const traffic_history& other)
    : by_id_(other.by_id_), by_position_(other.by_position_), version_(other.version_),
      followed_(other.followed_), refusals_(other.refusals_), refusals_next_(other.refusals_next_),
      refusals_held_(other.refusals_held_) {
    series_.reserve(other.series_.size());
    for (const auto& s : other.series_)
        series_.push_back(
            series{s.id, s.held ? std::make_unique<window_buckets>(*s.held) : nullptr});
}

void traffic_history::add(const traffic_history& other) {
    for (const auto& theirs : other.series_) {
        if (!theirs.held)
            continue;
        auto slot = slot_of(theirs.id);
        if (slot == unrouted && !theirs.id.empty())
            continue; // an upstream this thread does not follow (a reload between them)
        auto& ours = series_[slot].held;
        if (!ours)
            ours = std::make_unique<window_buckets>();
        for (std::size_t i = 0; i < bucket_count; ++i) {
            const auto& t = (*theirs.held)[i];
            auto& b = (*ours)[i];
            if (t.tick < 0 || t.tick < b.tick)
                continue;
            if (t.tick > b.tick) {
                b = t;
                continue;
            }
            for (std::size_t k = 0; k < outcome_count; ++k)
                b.outcomes[k] += t.outcomes[k];
            for (std::size_t k = 0; k < latency_bins; ++k)
                b.latency[k] += t.latency[k];
        }
    }
    // Both rings, oldest first, then the newest refusal_count of them in a ring again.
    std::vector<refusal> all;
    for (const traffic_history* h : {static_cast<const traffic_history*>(this), &other})
        for (std::size_t k = h->refusals_held_; k >= 1; --k)
            all.push_back(h->refusals_[(h->refusals_next_ + refusal_count - k) % refusal_count]);
    std::stable_sort(all.begin(), all.end(),
                     [](const refusal& a, const refusal& b) { return a.at < b.at; });
    auto from = all.size() > refusal_count ? all.size() - refusal_count : 0;
    refusals_held_ = all.size() - from;
    for (std::size_t k = 0; k < refusals_held_; ++k)
        refusals_[k] = std::move(all[from + k]);
    refusals_next_ = refusals_held_ % refusal_count;
}

void traffic_history::follow(std::uint64_t version, const std::vector<std::string>& ids) {
    if (followed_ && version <= version_)
        return;
    followed_ = true;
    version_ = version;
    std::vector<series> kept;
    kept.reserve(ids.size() + 1);
    kept.push_back(std::move(series_[unrouted]));
    std::unordered_map<std::string, std::size_t> index{{"", unrouted}};
    index.reserve(ids.size() + 1);
    by_position_.assign(ids.size(), unrouted);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (auto known = index.find(ids[i]); known != index.end()) {
            by_position_[i] = known->second; // the same id twice: one series
            continue;
        }
        series s{ids[i], nullptr};
        if (auto old = by_id_.find(ids[i]); old != by_id_.end())
            s.held = std::move(series_[old->second].held); // its traffic so far, kept
        index.emplace(ids[i], kept.size());
        by_position_[i] = kept.size();
        kept.push_back(std::move(s));
    }
    series_ = std::move(kept);
    by_id_ = std::move(index);
}

std::size_t traffic_history::slot_of(std::string_view id) const {
    // Heterogeneous lookup needs C++20's transparent hash; a rare path copies the key.
    auto it = by_id_.find(std::string(id));
    return it == by_id_.end() ? unrouted : it->second;
}

std::size_t traffic_history::windows_held() const {
    return static_cast<std::size_t>(
        std::count_if(series_.begin(), series_.end(), [](const series& s) { return !!s.held; }));
}

std::uint64_t traffic_history::bin_floor_us(std::size_t bin) {
    if (bin < 4)
        return bin;
    return static_cast<std::uint64_t>(4 + bin % 4) << (bin / 4 - 1);
}

void traffic_history::refused(time_point at, std::string_view method, std::string_view name,
                              std::string_view upstream, protocol::outcome o, std::string_view rule,
                              std::string_view who) {
    auto& r = refusals_[refusals_next_];
    refusals_next_ = (refusals_next_ + 1) % refusal_count;
    refusals_held_ = std::min(refusals_held_ + 1, refusal_count);
    r.at = at;
    keep(r.method, method);
    keep(r.name, name);
    keep(r.upstream, upstream);
    keep(r.rule, rule);
    r.who.assign(who);
    r.outcome = o;
}

std::vector<traffic_history::refusal> traffic_history::refusals_of(std::string_view who) const {
    std::vector<refusal> out;
    for (std::size_t k = 1; k <= refusals_held_; ++k) {
        const auto& r = refusals_[(refusals_next_ + refusal_count - k) % refusal_count];
        if (r.who == who)
            out.push_back(r);
    }
    return out;
}

std::optional<traffic_history::window> traffic_history::read(std::string_view id,
                                                             time_point now) const {
    auto slot = slot_of(id);
    if (slot == unrouted && !id.empty())
        return std::nullopt;
    const auto* held = series_[slot].held.get(); // null: no request yet
    window w;
    auto current = now.time_since_epoch() / bucket_width;
    std::array<std::uint64_t, latency_bins> all{};
    for (auto tick = current - static_cast<std::int64_t>(bucket_count) + 1; tick <= current;
         ++tick) {
        point p;
        p.start = time_point(std::chrono::duration_cast<duration>(tick * bucket_width));
        p.seconds = tick == current ? std::chrono::duration<double>(now - p.start).count()
                                    : std::chrono::duration<double>(bucket_width).count();
        const auto* b = held ? &(*held)[static_cast<std::size_t>(tick) % bucket_count] : nullptr;
        std::array<std::uint64_t, latency_bins> latency{};
        if (b && b->tick == tick) {
            p.outcomes = b->outcomes;
            for (auto n : b->outcomes)
                p.requests += n;
            for (std::size_t k = 0; k < latency_bins; ++k) {
                latency[k] = b->latency[k];
                all[k] += b->latency[k];
            }
        }
        p.p50_ms = quantile_ms(latency, p.requests, 0.5);
        p.p99_ms = quantile_ms(latency, p.requests, 0.99);
        for (std::size_t k = 0; k < outcome_count; ++k)
            w.total.outcomes[k] += p.outcomes[k];
        w.total.requests += p.requests;
        w.total.seconds += p.seconds;
        w.points.push_back(p);
    }
    w.total.start = w.points.front().start;
    w.total.p50_ms = quantile_ms(all, w.total.requests, 0.5);
    w.total.p99_ms = quantile_ms(all, w.total.requests, 0.99);
    return w;
}

} // namespace gate::gateway
