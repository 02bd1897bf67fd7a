// The recording's file (actors/sinks/record_file): appends, rotates to FILE.1 when the next line
// would pass the cap (replacing an older FILE.1), never writes a line longer than the cap.
#include "actors/sinks/record_file.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;

namespace {
struct scratch {
    fs::path dir = fs::temp_directory_path() / ("gate-record-file-" + std::to_string(::getpid()) +
                                                "-" + std::to_string(counter++));
    scratch() { fs::create_directories(dir); }
    ~scratch() { fs::remove_all(dir); }
    static inline int counter = 0;
};
std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
} // namespace

TEST(record_file, rotates_before_a_line_would_pass_the_cap) {
    scratch s;
    auto path = (s.dir / "t.jsonl").string();
    std::string why;
    auto f = gate::actors::record_file::open(path, 10, why);
    ASSERT_TRUE(f) << why;
    EXPECT_TRUE(f->write("aaaa\n"));
    EXPECT_TRUE(f->write("bbbb\n")); // exactly the cap
    EXPECT_TRUE(f->write("cccc\n")); // rotates first
    EXPECT_EQ(f->rotations(), 1u);
    EXPECT_TRUE(f->write("dddd\n"));
    EXPECT_TRUE(f->write("eeee\n")); // rotates again: the first file is gone
    f->flush();
    EXPECT_EQ(read(path + ".1"), "cccc\ndddd\n");
    EXPECT_EQ(read(path), "eeee\n");
    EXPECT_EQ(f->rotations(), 2u);
    EXPECT_FALSE(f->write(std::string(11, 'x'))); // longer than the cap: not written
    f->flush();
    EXPECT_EQ(read(path), "eeee\n");
}

TEST(record_file, appends_to_what_is_there_and_counts_it) {
    scratch s;
    auto path = (s.dir / "t.jsonl").string();
    std::ofstream(path) << "old\n";
    std::string why;
    auto f = gate::actors::record_file::open(path, 8, why);
    ASSERT_TRUE(f) << why;
    EXPECT_EQ(f->size(), 4u);
    EXPECT_TRUE(f->write("new\n"));
    EXPECT_TRUE(f->write("more\n")); // 4 + 4 + 5 > 8: rotates
    f->flush();
    EXPECT_EQ(read(path + ".1"), "old\nnew\n");
    EXPECT_EQ(read(path), "more\n");
}

TEST(record_file, says_why_it_cannot_open) {
    scratch s;
    std::string why;
    EXPECT_FALSE(gate::actors::record_file::open((s.dir / "no" / "t.jsonl").string(), 100, why));
    EXPECT_NE(why.find("No such file or directory"), std::string::npos) << why;
}
