// The downstream sessions of every io thread counted together (docs/io-threads.md): with
// several threads, `server.sessions.max` and `perPrincipal` bound the process, exactly as on
// one thread. Each thread still keeps, picks from and ends only its own sessions
// (session_table, session_shares); this only counts. Taken once per session opened or ended,
// never by a request on a session.
#pragma once

#include "gateway/mcp/session_shares.hpp"

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gate::gateway {

class session_census {
public:
    // One more session of `holder`, when the process holds fewer than `limits.table` and the
    // holder fewer than `limits.per_caller`; otherwise nothing is counted and the bound that is
    // full (the holder's first) says why.
    std::optional<share_reason> claim(const std::string& holder, const session_limits& limits);
    // A session of `from` ended to make room for one of `to` (an eviction): the table's count
    // is unchanged. False, and nothing changed, when `to` already holds its share (another
    // thread took it meanwhile).
    bool hand_over(const std::string& from, const std::string& to, const session_limits& limits);
    void release(const std::string& holder);
    // Of `holders`, those holding more than the process's fair share: `limits.table` divided
    // among the process's holders, `newcomer` counted. Most sessions first (then by name).
    std::vector<std::string> above_fair_share(std::vector<std::string> holders,
                                              const std::string& newcomer,
                                              const session_limits& limits) const;

    std::size_t size() const;
    std::size_t held_by(const std::string& holder) const;

private:
    mutable std::mutex lock_;
    std::size_t total_ = 0;
    std::unordered_map<std::string, std::size_t> held_;
};

} // namespace gate::gateway
