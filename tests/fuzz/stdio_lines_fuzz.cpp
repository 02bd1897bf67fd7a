// gate-stdio's framing of a child's stdout on arbitrary bytes in arbitrary splits: the lines
// must not depend on how the stream was cut, and none is longer than the cap.
#include "shim/line_splitter.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2)
        return 0;
    std::size_t cap = data[0] % 64 + 1, step = data[1] % 7 + 1;
    std::string_view all(reinterpret_cast<const char*>(data + 2), size - 2);
    gate::shim::line_splitter whole(cap), pieces(cap);
    std::vector<std::string> a, b;
    bool ok_whole = whole.feed(all, a);
    bool ok_pieces = true;
    for (std::size_t i = 0; i < all.size() && ok_pieces; i += step)
        ok_pieces = pieces.feed(all.substr(i, step), b);
    if (ok_whole != ok_pieces || (ok_whole && a != b))
        std::abort();
    for (const auto& line : a)
        if (line.size() > cap || line.find('\n') != std::string::npos)
            std::abort();
    auto framed = gate::shim::to_stdio_line(all);
    if (framed.find('\n') != framed.size() - 1 && framed.find('\n') != std::string::npos)
        std::abort();
    return 0;
}
