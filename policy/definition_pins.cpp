#include "policy/definition_pins.hpp"

#include <algorithm>

namespace gate::policy {

namespace {

// "sha256:" and 64 lower-case hex digits, as protocol/tool_definition writes them.
bool is_digest(std::string_view d) {
    if (d.size() != 7 + 64 || !d.starts_with("sha256:"))
        return false;
    return std::all_of(d.begin() + 7, d.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

} // namespace

std::optional<pin_mode> pin_mode_named(std::string_view name) {
    if (name == "off")
        return pin_mode::off;
    if (name == "warn")
        return pin_mode::warn;
    if (name == "block")
        return pin_mode::block;
    return std::nullopt;
}

std::string_view pin_mode_name(pin_mode m) {
    switch (m) {
    case pin_mode::warn:
        return "warn";
    case pin_mode::block:
        return "block";
    case pin_mode::off:
        break;
    }
    return "off";
}

bool definition_pins::full(const std::string& upstream) const {
    auto it = pins_of_.find(upstream);
    return it != pins_of_.end() && it->second >= max_pins_per_upstream;
}

void definition_pins::use_lock(std::optional<lock_map> lock) {
    lock_ = std::move(lock);
}

std::optional<std::string> definition_pins::to_share(const std::string& upstream,
                                                     const std::string& tool,
                                                     const std::string& digest,
                                                     clock::time_point now) const {
    if (lock_)
        return std::nullopt;
    auto it = first_seen_.find({upstream, tool});
    if (it == first_seen_.end())
        return full(upstream) ? std::nullopt : std::optional(digest);
    if (it->second.agreed && now - *it->second.agreed < share_interval)
        return std::nullopt;
    return digest;
}

bool definition_pins::pin_shared(const std::string& upstream, const std::string& tool,
                                 std::string digest, clock::time_point now) {
    if (!is_digest(digest))
        return false;
    auto it = first_seen_.find({upstream, tool});
    if (it == first_seen_.end()) {
        if (full(upstream))
            return false;
        it = first_seen_.emplace(std::pair{upstream, tool}, pin{}).first;
        ++pins_of_[upstream];
    }
    it->second = {std::move(digest), now};
    return true;
}

std::optional<definition_change> definition_pins::judge(const std::string& upstream,
                                                        const std::string& tool,
                                                        const std::string& digest) {
    std::string pinned;
    if (lock_) {
        auto up = lock_->find(upstream);
        if (up != lock_->end())
            if (auto it = up->second.find(tool); it != up->second.end())
                pinned = it->second;
    } else {
        auto it = first_seen_.find({upstream, tool});
        if (it == first_seen_.end()) {
            // Bounded: a tool past the upstream's bound has no pin, so nothing says it is as
            // pinned. It is judged changed (withheld under `block`), told once per upstream.
            if (full(upstream))
                return definition_change{{}, digest, !told_full_.insert(upstream).second, true};
            it = first_seen_.emplace(std::pair{upstream, tool}, pin{digest, std::nullopt}).first;
            ++pins_of_[upstream];
        }
        pinned = it->second.digest;
    }
    if (pinned == digest)
        return std::nullopt;
    // Told once per digest seen: a list fetched again says nothing new.
    bool told = !reported_.emplace(upstream, tool, digest).second;
    if (reported_.size() > max_reports)
        reported_.clear();
    return definition_change{std::move(pinned), digest, told};
}

} // namespace gate::policy
