// The reply reader on arbitrary bytes, fed in two pieces split anywhere: never crashes, and a
// stream it refuses stays refused (the connection is dropped, nothing more is read from it).
#include "transport/redis/redis_wire.hpp"

#include <cstdint>
#include <cstdlib>

using gate::transport::redis_reply_reader;
using gate::transport::redis_value;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    auto split = std::min<std::size_t>(data[0], bytes.size());
    redis_reply_reader r;
    for (auto piece : {bytes.substr(0, split), bytes.substr(split)}) {
        r.feed(piece);
        for (;;) {
            auto next = r.next();
            if (std::holds_alternative<std::string>(next))
                return 0;
            if (std::holds_alternative<std::nullopt_t>(next))
                break;
            const auto& v = std::get<redis_value>(next);
            if (v.type == redis_value::kind::array && v.elements.size() > bytes.size())
                std::abort(); // more elements than bytes: a reader that made them up
        }
    }
    return 0;
}
