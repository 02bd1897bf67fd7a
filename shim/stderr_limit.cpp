#include "shim/stderr_limit.hpp"

#include <algorithm>
#include <utility>

namespace gate::shim {

stderr_limit::stderr_limit(const stderr_limits& limits, time_point now)
    : limits_(limits), tokens_(limits.burst), refilled_(now), reported_(now) {}

stderr_limit::verdict stderr_limit::line(time_point now) {
    if (now > refilled_) {
        std::chrono::duration<double> passed = now - refilled_;
        tokens_ = std::min(limits_.burst, tokens_ + passed.count() * limits_.lines_per_second);
        refilled_ = now;
    }
    verdict v;
    if (tokens_ >= 1) {
        tokens_ -= 1;
        v.log = true;
    } else {
        ++held_back_;
    }
    v.report = due(now);
    return v;
}

std::uint64_t stderr_limit::due(time_point now) {
    // The first held-back line is reported at once, so the log says why lines stop; after
    // that a report at most every `report_every` (a child that floods for an hour adds one
    // line per period, not one per held-back line).
    if (held_back_ == 0 || (reported_once_ && now - reported_ < limits_.report_every))
        return 0;
    reported_once_ = true;
    reported_ = now;
    return std::exchange(held_back_, 0);
}

std::uint64_t stderr_limit::rest() {
    return std::exchange(held_back_, 0);
}

namespace {

// The length of the UTF-8 prefix of `s` of at most `max` bytes that ends on a character
// boundary (continuation bytes are 10xxxxxx).
std::size_t utf8_cut(std::string_view s, std::size_t max) {
    if (s.size() <= max)
        return s.size();
    auto n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return n;
}

} // namespace

std::string loggable_line(std::string_view line, std::size_t length, std::size_t max_bytes) {
    auto keep = utf8_cut(line, max_bytes);
    std::string out;
    out.reserve(keep + 32);
    static constexpr char hex[] = "0123456789abcdef";
    auto kept = line.substr(0, keep);
    for (std::size_t i = 0; i < kept.size(); ++i) {
        auto u = static_cast<unsigned char>(kept[i]);
        auto next = i + 1 < kept.size() ? static_cast<unsigned char>(kept[i + 1]) : 0;
        if (u < 0x20 || u == 0x7f) {
            out.append("\\x").push_back(hex[u >> 4]);
            out.push_back(hex[u & 0xf]);
        } else if (u == 0xc2 && next >= 0x80 && next <= 0x9f) {
            // A C1 control (U+0080 to U+009F, CSI among them), which terminals act on too.
            out.append("\\u00").push_back(hex[next >> 4]);
            out.push_back(hex[next & 0xf]);
            ++i;
        } else {
            out.push_back(kept[i]);
        }
    }
    length = std::max(length, line.size());
    if (keep < length)
        out.append("... (").append(std::to_string(length)).append(" bytes)");
    return out;
}

} // namespace gate::shim
