#include "actors/sinks/batcher.hpp"

#include <algorithm>

namespace gate::actors {

batcher::batcher(std::string id_prefix, limits l) : limits_(l), prefix_(std::move(id_prefix)) {
    limits_.batch = std::max<std::size_t>(limits_.batch, 1);
    limits_.buffer = std::max(limits_.buffer, limits_.batch);
}

bool batcher::add(std::string event_json, clock::time_point now) {
    if (waiting_.size() >= limits_.buffer) {
        ++dropped_;
        return false;
    }
    waiting_.push_back({now, std::move(event_json)});
    return true;
}

std::optional<batcher::batch> batcher::take(clock::time_point now) {
    if (in_flight_)
        return std::nullopt;
    if (retry_) {
        if (now < retry_at_)
            return std::nullopt;
        in_flight_ = std::move(retry_);
        retry_.reset();
        return in_flight_;
    }
    auto due = next_due();
    if (!due || now < *due)
        return std::nullopt;
    batch b;
    b.id = prefix_ + "-" + std::to_string(++sequence_);
    b.events = std::min(waiting_.size(), limits_.batch);
    b.body = "[";
    for (std::size_t i = 0; i < b.events; ++i) {
        if (i > 0)
            b.body += ',';
        b.body += waiting_[i].json;
    }
    b.body += ']';
    in_flight_ = std::move(b);
    return in_flight_;
}

batcher::transition batcher::settle(result r, clock::time_point now) {
    if (!in_flight_)
        return transition::none;
    auto b = std::move(*in_flight_);
    in_flight_.reset();
    if (r == result::failed) {
        ++failures_;
        backoff_ = backoff_ == clock::duration{} ? limits_.first_backoff
                                                 : std::min(2 * backoff_, limits_.max_backoff);
        ++b.attempt;
        retry_ = std::move(b);
        retry_at_ = now + backoff_;
        bool began = !failing_;
        failing_ = true;
        return began ? transition::outage_began : transition::none;
    }
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(b.events));
    backoff_ = {};
    bool was_failing = failing_;
    failing_ = false;
    if (r == result::refused) {
        dropped_ += static_cast<std::int64_t>(b.events);
        return transition::refused;
    }
    delivered_ += static_cast<std::int64_t>(b.events);
    return was_failing ? transition::recovered : transition::none;
}

std::optional<batcher::clock::time_point> batcher::next_due() const {
    if (in_flight_)
        return std::nullopt;
    if (retry_)
        return retry_at_;
    if (waiting_.empty())
        return std::nullopt;
    const auto& oldest = waiting_.front().at;
    if (closing_ || waiting_.size() >= limits_.batch)
        return oldest;
    return oldest + limits_.linger;
}

} // namespace gate::actors
