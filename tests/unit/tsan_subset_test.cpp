// The unit tests built under ThreadSanitizer are those whose code runs on more than one thread
// (tests/CMakeLists.txt, docs/ci.md): every unit test file that starts a thread or an actor
// system must be on that list, or TSan would never see it.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST(tsan_subset, every_unit_test_that_starts_threads_is_built_under_tsan) {
    const fs::path source{GATE_SOURCE_DIR};
    auto cmake = read_text(source / "tests" / "CMakeLists.txt");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(cmake, m, std::regex(R"re("/\(([a-z_|]+)\)_test)re")))
        << "the TSan list in tests/CMakeLists.txt";
    auto listed = "|" + m[1].str() + "|";
    const std::regex starts_threads(R"(std::j?thread\b|caf::|actor_system)");
    int threaded = 0;
    for (const auto& entry : fs::directory_iterator(source / "tests" / "unit")) {
        auto name = entry.path().filename().string();
        if (!name.ends_with("_test.cpp") || name == "tsan_subset_test.cpp")
            continue;
        if (!std::regex_search(read_text(entry.path()), starts_threads))
            continue;
        ++threaded;
        auto stem = name.substr(0, name.size() - std::string("_test.cpp").size());
        EXPECT_NE(listed.find("|" + stem + "|"), std::string::npos)
            << name << " starts threads but is not built under TSan (tests/CMakeLists.txt)";
    }
    EXPECT_GE(threaded, 3);
}
