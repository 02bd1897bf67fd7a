// The SQLite store holds every webhook's signing secret: its file, and the -wal, -shm and
// -journal files SQLite keeps beside it, are readable by their owner only (docs/webhooks.md,
// "Storage"). Plain C++ over POSIX calls.
#pragma once

#include <string>
#include <vector>

namespace gate::hooks {

// Before SQLite opens `path`: creates the database file with mode 0600 when it does not
// exist (SQLite gives the files it creates beside it the database's mode, so they are 0600
// from their first byte), and takes the group's and others' permissions off the database and
// any -wal, -shm or -journal file that already has them. Returns those tightened ("path (was
// 0644)"), for a warning: whoever could read them may have read the secrets. Throws
// std::runtime_error saying what to do when a file cannot be created or tightened (another
// user's file, not a regular file), and for a `file:` URI, whose file SQLite would create
// itself. ":memory:" and "" (a private temporary database) have no file to protect.
std::vector<std::string> keep_database_private(const std::string& path);

} // namespace gate::hooks
