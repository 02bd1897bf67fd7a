// The SSE parser on arbitrary bytes fed in arbitrary splits: the events must not depend on
// how the stream was cut.
#include "transport/http/sse.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    std::string_view all(reinterpret_cast<const char*>(data + 1), size - 1);
    gate::transport::sse_parser whole, pieces;
    auto a = whole.feed(all);
    std::vector<gate::transport::sse_event> b;
    std::size_t step = data[0] % 7 + 1;
    for (std::size_t i = 0; i < all.size(); i += step)
        for (auto& e : pieces.feed(all.substr(i, step)))
            b.push_back(std::move(e));
    if (a.size() != b.size())
        std::abort();
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].data != b[i].data || a[i].id != b[i].id || a[i].event != b[i].event)
            std::abort();
    return 0;
}
