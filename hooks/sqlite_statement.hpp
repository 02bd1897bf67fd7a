// The SQLite store's statements: prepared once per connection and kept, by SQL text, with
// typed binding and reading. Parsing and planning the hot ones (ingest, claim, record) on every
// call was most of the store's time. Used by sqlite_store.cpp only.
#pragma once

#include <cstdint>
#include <optional>
#include <sqlite3.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::hooks::sqlite {

// Prepared statements kept for the connection's life, by SQL text.
class statement_cache {
public:
    statement_cache() = default;
    statement_cache(const statement_cache&) = delete;
    statement_cache& operator=(const statement_cache&) = delete;
    ~statement_cache() { clear(); }

    void open(sqlite3* db) { db_ = db; }
    sqlite3* db() const { return db_; }

    sqlite3_stmt* borrow(const std::string& sql) {
        auto it = free_.find(sql);
        if (it != free_.end() && !it->second.empty()) {
            auto* st = it->second.back();
            it->second.pop_back();
            return st;
        }
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr) !=
            SQLITE_OK) {
            sqlite3_finalize(st);
            throw std::runtime_error(std::string("sqlite prepare: ") + sqlite3_errmsg(db_));
        }
        return st;
    }
    void give_back(const std::string& sql, sqlite3_stmt* st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        free_[sql].push_back(st);
    }
    // Before the connection closes.
    void clear() {
        for (auto& [sql, list] : free_)
            for (auto* st : list)
                sqlite3_finalize(st);
        free_.clear();
    }

private:
    sqlite3* db_ = nullptr;
    std::unordered_map<std::string, std::vector<sqlite3_stmt*>> free_;
};

class statement {
public:
    statement(statement_cache& cache, std::string sql)
        : cache_(cache), sql_(std::move(sql)), db_(cache.db()), st_(cache.borrow(sql_)) {}
    ~statement() { cache_.give_back(sql_, st_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;

    statement& bind(int i, std::string_view v) {
        sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
    statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
    statement& bind(int i, std::int64_t v) {
        sqlite3_bind_int64(st_, i, v);
        return *this;
    }
    statement& bind(int i, const std::optional<std::string>& v) {
        if (v)
            return bind(i, std::string_view(*v));
        sqlite3_bind_null(st_, i);
        return *this;
    }
    statement& bind(int i, const std::optional<int>& v) {
        if (v)
            return bind(i, static_cast<std::int64_t>(*v));
        sqlite3_bind_null(st_, i);
        return *this;
    }
    statement& bind(int i, const std::optional<std::int64_t>& v) {
        if (v)
            return bind(i, *v);
        sqlite3_bind_null(st_, i);
        return *this;
    }
    // True while there is a row.
    bool step() {
        int rc = sqlite3_step(st_);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        throw std::runtime_error(std::string("sqlite step: ") + sqlite3_errmsg(db_));
    }
    std::string text(int col) const {
        auto* p = sqlite3_column_text(st_, col);
        return p ? reinterpret_cast<const char*>(p) : "";
    }
    std::optional<std::string> opt_text(int col) const {
        if (sqlite3_column_type(st_, col) == SQLITE_NULL)
            return std::nullopt;
        return text(col);
    }
    std::int64_t integer(int col) const { return sqlite3_column_int64(st_, col); }
    std::optional<std::int64_t> opt_integer(int col) const {
        if (sqlite3_column_type(st_, col) == SQLITE_NULL)
            return std::nullopt;
        return integer(col);
    }

private:
    statement_cache& cache_;
    std::string sql_;
    sqlite3* db_;
    sqlite3_stmt* st_;
};

} // namespace gate::hooks::sqlite
