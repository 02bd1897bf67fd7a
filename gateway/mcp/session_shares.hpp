// How the downstream session table is shared among callers (docs/sessions.md, "The session
// table"): each caller (a principal, or an anonymous client address) holds at most its share,
// and a new session that does not fit ends an idle one of whoever holds the most, so one caller
// cannot lock the others out. Plain C++ with time passed in: session_table keeps one under its
// lock and asks it before every new session.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::gateway {

// The bounds of the table (server.sessions): read at each new session, so a reload applies
// them to the next one.
struct session_limits {
    std::size_t table = 10000;     // sessions at once
    std::size_t per_caller = 1000; // one caller's share (server.sessions.perPrincipal)

    // What a caller may hold: its share, and always one session.
    std::size_t caller_share() const { return per_caller == 0 ? 1 : per_caller; }
};

// Why a session was ended early or a new one refused; the metric's `reason` label.
enum class share_reason {
    caller_share, // the caller holds its whole share
    table_full,   // the table holds `table` sessions
};
std::string_view share_reason_label(share_reason r);

class session_shares {
public:
    using time_point = std::chrono::steady_clock::time_point;
    // Whether a session may be ended now: no open GET stream, no request in flight.
    using idle_test = std::function<bool(const std::string& id)>;

    struct verdict {
        bool admit = false;               // the new session may open (after `evict`, if set)
        std::optional<std::string> evict; // the idle session to end first
        std::string evicted_holder;       // whose it is
        std::chrono::steady_clock::duration evicted_idle{}; // unused for this long
        share_reason reason = share_reason::table_full;     // of the eviction, or of the refusal
    };

    // What a new session of `holder` costs at `now`: nothing (admit), another session (admit
    // after evicting it), or a refusal when every session that could go is in use.
    //  - At its share, the caller gives up its own least recently used idle session.
    //  - With the table full, the holder with the most sessions above the fair share (the
    //    table divided among the holders, the caller counted) gives up its least recently used
    //    idle one; ties go to the holder whose oldest session was used longest ago. Holders at
    //    or under the fair share lose nothing to others; the caller may still give up its own.
    verdict admit(const std::string& holder, const session_limits& limits, time_point now,
                  const idle_test& idle) const;

    // Bookkeeping; calls come in time order (a steady clock).
    void opened(const std::string& id, const std::string& holder, time_point now);
    void used(const std::string& id, time_point now);
    // Whose session it was ("" when it was not known).
    std::string closed(const std::string& id);
    void clear();

    // The least recently used idle session of the first of `order` (holders' names) that has
    // one here, ended for `why`; a refusal for `why` when none has. Several io threads' full
    // table (session_census): the process ranks the holders, this table picks among its own.
    verdict first_idle_of(const std::vector<std::string>& order, share_reason why, time_point now,
                          const idle_test& idle) const;
    // The holders of this table's sessions.
    std::vector<std::string> holder_names() const;

    std::size_t size() const { return sessions_.size(); }
    std::size_t held_by(const std::string& holder) const;
    std::size_t holders() const { return holders_.size(); }

private:
    struct use {
        const std::string* id; // the key of its entry in sessions_ (node-stable)
        time_point at;
    };
    struct holder_entry {
        std::string name;
        std::list<use> lru; // its sessions, least recently used first; never empty while held
    };
    struct session_entry {
        holder_entry* holder = nullptr;
        std::list<use>::iterator at;
    };
    // Most sessions first, then the one whose least recently used session is oldest.
    struct rank_order {
        bool operator()(const holder_entry* a, const holder_entry* b) const;
    };

    const use* lru_idle(const holder_entry& h, const idle_test& idle) const;
    static verdict evicting(const holder_entry& h, const use& victim, share_reason why,
                            time_point now);
    // Applies `change` to `h` (its count or its oldest use) and keeps ranked_ sorted.
    template <class Change> void rerank(holder_entry& h, Change change);

    std::unordered_map<std::string, session_entry> sessions_;
    std::unordered_map<std::string, holder_entry> holders_; // node-stable: ranked_ points here
    std::set<holder_entry*, rank_order> ranked_;            // every holder, most sessions first
};

} // namespace gate::gateway
