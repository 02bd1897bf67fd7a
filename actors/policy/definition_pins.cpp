#include "actors/policy/definition_pins.hpp"

namespace gate {

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

void definition_pins::use_lock(std::optional<lock_map> lock) {
    lock_ = std::move(lock);
}

void definition_pins::pin_shared(const std::string& upstream, const std::string& tool,
                                 std::string digest) {
    if (first_seen_.size() < max_pins || first_seen_.contains({upstream, tool}))
        first_seen_[{upstream, tool}] = std::move(digest);
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
        auto [it, fresh] = first_seen_.try_emplace({upstream, tool}, digest);
        if (fresh && first_seen_.size() > max_pins) {
            first_seen_.erase(it); // bounded: a tool past the bound is not pinned
            return std::nullopt;
        }
        pinned = it->second;
    }
    if (pinned == digest)
        return std::nullopt;
    // Told once per digest seen: a list fetched again says nothing new.
    bool told = !reported_.emplace(upstream, tool, digest).second;
    if (reported_.size() > max_pins)
        reported_.clear();
    return definition_change{std::move(pinned), digest, told};
}

} // namespace gate
