// A recording's line (what gate --record writes and the replay reads back), on arbitrary text:
// parsing never crashes; a line it accepts writes back to a line that parses to the same line
// again (nothing the reader accepts is lost or changed by a round trip).
#include "protocol/recording.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
template <class Record> std::string written(const Record& r) {
    return gate::protocol::to_json_line(r);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = gate::protocol::parse_line(text);
    if (auto* why = std::get_if<std::string>(&parsed)) {
        if (why->empty())
            std::abort();
        return 0;
    }
    auto line = std::visit([](const auto& r) { return written(r); },
                           std::get<gate::protocol::recorded_line>(parsed));
    auto again = gate::protocol::parse_line(line);
    if (!std::holds_alternative<gate::protocol::recorded_line>(again))
        std::abort();
    auto line2 = std::visit([](const auto& r) { return written(r); },
                            std::get<gate::protocol::recorded_line>(again));
    if (line2 != line)
        std::abort();
    return 0;
}
