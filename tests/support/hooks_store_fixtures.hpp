// The store a gate-hooks test runs against (tests/hooks): SQLite in a file of the test's own in
// the temporary folder, or a real PostgreSQL started for the test (postgres_server.hpp), and
// one number read past the store, straight from the database. `hooks_both_stores` runs each
// TEST_P on both (instantiated with hooks_store_kinds() and hooks_store_name);
// `hooks_sqlite_store` is SQLite alone, for what only it has (its indexes, its file reopened).
// Everything here is in gate::test, none of it in a file's anonymous namespace: the hooks tests
// are compiled in unity batches (cmake/unity.cmake), where such names would meet.
#pragma once

#include "hooks/store.hpp"
#include "tests/support/postgres_server.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <memory>
#include <sqlite3.h>
#include <string>
#include <unistd.h>

namespace gate::test {

// A database for one test, "sqlite" or "postgres": made when constructed, gone when destroyed.
class hooks_test_database {
public:
    explicit hooks_test_database(const std::string& kind) {
        if (kind == "postgres")
            pg_ = std::make_unique<postgres_server>();
        else
            path_ = sqlite_path();
    }
    hooks_test_database(const hooks_test_database&) = delete;
    hooks_test_database& operator=(const hooks_test_database&) = delete;
    ~hooks_test_database() {
        if (!pg_)
            for (auto suffix : {"", "-wal", "-shm"})
                std::filesystem::remove(path_ + suffix);
    }

    bool ready() const { return !pg_ || pg_->ready(); }
    // A store on it; the SQLite file keeps what an earlier one wrote (a restart).
    std::unique_ptr<hooks::store> open() const {
        return pg_ ? hooks::open_postgres_store(pg_->url()) : hooks::open_sqlite_store(path_);
    }

    // The first column of the first row `sql` answers (-1 when it answers none), whoever's
    // rows they are: from another connection, not through the store.
    std::int64_t scalar(const char* sql) const {
        if (pg_) {
            PGconn* c = PQconnectdb(pg_->url().c_str());
            PGresult* r = PQexec(c, sql);
            std::int64_t n = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0
                                 ? std::strtoll(PQgetvalue(r, 0, 0), nullptr, 10)
                                 : -1;
            PQclear(r);
            PQfinish(c);
            return n;
        }
        sqlite3* raw = nullptr;
        sqlite3_open_v2(path_.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
        sqlite3_stmt* q = nullptr;
        sqlite3_prepare_v2(raw, sql, -1, &q, nullptr);
        std::int64_t n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
        sqlite3_finalize(q);
        sqlite3_close(raw);
        return n;
    }

private:
    // Named by the process and the test, so tests run side by side (ctest -j) never share one.
    static std::string sqlite_path() {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = test ? std::string(test->test_suite_name()) + "." + test->name() : "";
        std::replace(name.begin(), name.end(), '/', '_'); // a TEST_P's instance and parameter
        auto file = "gate-hooks-" + std::to_string(::getpid()) + "-" + name + ".db";
        return (std::filesystem::temp_directory_path() / file).string();
    }

    std::unique_ptr<postgres_server> pg_;
    std::string path_;
};

// What both fixtures hold: the database, and `db`, the store open on it (closed first).
struct hooks_store_holder {
    std::unique_ptr<hooks_test_database> database;
    std::unique_ptr<hooks::store> db;

    void open_store(const std::string& kind) {
        database = std::make_unique<hooks_test_database>(kind);
        ASSERT_TRUE(database->ready()); // a fatal failure: the test's body does not run
        db = database->open();
    }
    std::int64_t scalar(const char* sql) const { return database->scalar(sql); }
};

struct hooks_both_stores : ::testing::TestWithParam<std::string>, hooks_store_holder {
    void SetUp() override { open_store(GetParam()); }
};

struct hooks_sqlite_store : ::testing::Test, hooks_store_holder {
    void SetUp() override { open_store("sqlite"); }
};

// INSTANTIATE_TEST_SUITE_P(stores, suite, hooks_store_kinds(), hooks_store_name): each test of
// `suite` once per store, named by it (stores/suite.test/sqlite).
inline auto hooks_store_kinds() {
    return ::testing::Values(std::string("sqlite"), std::string("postgres"));
}
inline std::string hooks_store_name(const ::testing::TestParamInfo<std::string>& info) {
    return info.param;
}

} // namespace gate::test
