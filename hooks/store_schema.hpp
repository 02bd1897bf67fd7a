// The stores' schemas as their migrations, in order: each runs once, in its own transaction
// (SQLite counts them in PRAGMA user_version, PostgreSQL in gate_hooks_schema). A change to
// the schema is a new migration at the end, never an edit of one that has run somewhere.
#pragma once

#include <span>

namespace gate::hooks {

std::span<const char* const> sqlite_migrations();
std::span<const char* const> postgres_migrations();

} // namespace gate::hooks
