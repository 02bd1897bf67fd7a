// The PostgreSQL store's results and parameters: a result that frees itself and throws on a
// failed command, and statement parameters as text (nullopt is NULL). Used by
// postgres_store.cpp only.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <libpq-fe.h>
#include <optional>
#include <stdexcept>
#include <string>

namespace gate::hooks::pg {

// A result that frees itself; throws on a failed command.
class result {
public:
    result(PGconn* c, PGresult* r) : r_(r) {
        auto s = PQresultStatus(r);
        if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
            std::string why = PQresultErrorMessage(r);
            PQclear(r);
            r_ = nullptr;
            throw std::runtime_error("postgres: " + (why.empty() ? PQerrorMessage(c) : why));
        }
    }
    ~result() { PQclear(r_); }
    result(const result&) = delete;
    result& operator=(const result&) = delete;
    int rows() const { return PQntuples(r_); }
    int affected() const { return std::atoi(PQcmdTuples(r_)); }
    bool null(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }
    std::string text(int row, int col) const { return PQgetvalue(r_, row, col); }
    std::optional<std::string> opt_text(int row, int col) const {
        return null(row, col) ? std::nullopt : std::optional(text(row, col));
    }
    std::int64_t integer(int row, int col) const {
        return std::strtoll(PQgetvalue(r_, row, col), nullptr, 10);
    }
    std::optional<std::int64_t> opt_integer(int row, int col) const {
        return null(row, col) ? std::nullopt : std::optional(integer(row, col));
    }
    bool boolean(int row, int col) const { return text(row, col) == "t"; }

private:
    PGresult* r_;
};

// Text parameters; nullopt is NULL.
using param = std::optional<std::string>;
inline param p(std::string v) {
    return v;
}
inline param p(std::int64_t v) {
    return std::to_string(v);
}
inline param p(const std::optional<std::string>& v) {
    return v;
}
inline param p(bool v) {
    return std::string(v ? "true" : "false");
}

} // namespace gate::hooks::pg
