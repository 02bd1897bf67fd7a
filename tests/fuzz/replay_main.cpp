// Replays a fuzz target's corpus without libFuzzer, so the ordinary (uninstrumented) build's
// ctest runs every seed through the target's checks: each file named, and every regular file
// in each folder named, is handed to LLVMFuzzerTestOneInput once, in name order. A check
// that fails aborts, which fails the test; so do a missing path and a corpus with no file
// (a moved folder must not pass by replaying nothing).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// The files a path stands for: itself, or a folder's regular files sorted by name.
bool collect(const fs::path& p, std::vector<fs::path>& out) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
        out.push_back(p);
        return true;
    }
    if (!fs::is_directory(p, ec))
        return false;
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(p, ec))
        if (entry.is_regular_file(ec))
            found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
    return !ec;
}

// The input in a buffer of exactly its size, as libFuzzer gives it (a read past the end is
// then a read past an allocation, which a sanitizer build reports).
struct input {
    std::unique_ptr<std::uint8_t[]> bytes;
    std::size_t size = 0;
};

input contents(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> read{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    input out{std::make_unique<std::uint8_t[]>(read.size()), read.size()};
    std::copy(read.begin(), read.end(), out.bytes.get());
    return out;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i)
        if (!collect(argv[i], inputs)) {
            std::fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 2;
        }
    if (inputs.empty()) {
        std::fprintf(stderr, "replay: no input in the paths given\n");
        return 2;
    }
    for (const auto& p : inputs) {
        // Named before it runs: a crash leaves the input that caused it as the last line.
        std::fprintf(stderr, "replay: %s\n", p.c_str());
        std::fflush(stderr);
        auto in = contents(p);
        LLVMFuzzerTestOneInput(in.bytes.get(), in.size);
    }
    std::fprintf(stderr, "replay: %zu input(s), every check held\n", inputs.size());
    return 0;
}
