// Cursor decoding on arbitrary text: never crashes; whatever decodes re-encodes to the same
// text (only minted cursors are accepted).
#include "protocol/cursor_codec.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const gate::protocol::cursor_codec codec(gate::protocol::cursor_codec::key_type{});
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto c = codec.decode(text); c && codec.encode(*c) != text)
        std::abort();
    return 0;
}
