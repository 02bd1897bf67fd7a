// The SQLite store's files are its owner's alone: created 0600 whatever the umask allows, and
// an existing database or side file others could read is tightened and reported.
#include "hooks/private_files.hpp"
#include "hooks/store.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using gate::hooks::keep_database_private;

namespace {

struct private_files : ::testing::Test {
    std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                ("gate-hooks-private-" + std::to_string(::getpid()) + "-" +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::string db = (dir / "hooks.db").string();
    mode_t saved_umask = ::umask(022); // the usual one, under which SQLite alone makes 0644
    private_files() { std::filesystem::create_directories(dir); }
    ~private_files() override {
        ::umask(saved_umask);
        std::filesystem::remove_all(dir);
    }
    static mode_t mode(const std::string& path) {
        struct stat st {};
        EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
        return st.st_mode & 07777;
    }
    static void write(const std::string& path, mode_t m) {
        std::ofstream(path) << "x";
        ::chmod(path.c_str(), m);
    }
};

} // namespace

TEST_F(private_files, a_new_database_and_its_side_files_are_the_owners_alone) {
    EXPECT_TRUE(keep_database_private(db).empty());
    EXPECT_EQ(mode(db), 0600u);
    // The store writes through SQLite, which makes -wal and -shm with the database's mode.
    auto store = gate::hooks::open_sqlite_store(db);
    store->create_webhook("org", {"deploy.success", "https://h.example/", "0123456789abcdef"},
                          gate::hooks::clock_time(std::chrono::hours(1)));
    for (const char* f : {"", "-wal", "-shm"})
        EXPECT_EQ(mode(db + f), 0600u) << f;
}

TEST_F(private_files, looser_existing_files_are_tightened_and_reported) {
    write(db, 0644);
    write(db + "-wal", 0664);
    write(db + "-journal", 0604);
    write(db + "-shm", 0600);
    auto tightened = keep_database_private(db);
    ASSERT_EQ(tightened.size(), 3u);
    EXPECT_EQ(tightened[0], db + " (was 0644)");
    EXPECT_EQ(tightened[1], db + "-wal (was 0664)");
    EXPECT_EQ(tightened[2], db + "-journal (was 0604)");
    for (const char* f : {"", "-wal", "-shm", "-journal"})
        EXPECT_EQ(mode(db + f), 0600u) << f;
    EXPECT_TRUE(keep_database_private(db).empty()); // nothing left to do
}

TEST_F(private_files, what_cannot_be_made_private_is_refused_with_the_reason) {
    std::filesystem::create_directories(db); // a directory where the file should be
    EXPECT_THROW(keep_database_private(db), std::runtime_error);
    try {
        keep_database_private("file:" + db + "?mode=rwc");
        FAIL() << "a file: URI was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not a file: URI"), std::string::npos) << e.what();
    }
    auto other = (dir / "other.db").string();
    write(other, 0600);
    std::filesystem::create_symlink("/nonexistent-target", other + "-wal");
    EXPECT_THROW(keep_database_private(other), std::runtime_error); // a planted link
    EXPECT_TRUE(keep_database_private(":memory:").empty());
    EXPECT_TRUE(keep_database_private("").empty());
}
