// The files gate-hooks keeps secrets in. The SQLite store holds every webhook's signing secret:
// its file, and the -wal, -shm and -journal files SQLite keeps beside it, are readable by their
// owner only (docs/webhooks.md, "Storage"). The configuration holds every organization's token:
// gate-hooks does not start from one that other users can read (docs/operations.md). Plain C++
// over POSIX calls.
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

// The text of the configuration file at `path`, read from the one open file whose mode was
// checked (a pipe, as from `--config <(...)`, too). Throws std::runtime_error saying what to do
// when it cannot be read, or users other than its owner and its group may read or write it (as ssh
// refuses such a key): its group is how an operator lets the service's user read a root-owned
// file (0640 root:gate), others are every account on the machine. Not tightened here as the
// database is: the file is the operator's, and its tokens may already have been read.
std::string read_private_config(const std::string& path);

} // namespace gate::hooks
