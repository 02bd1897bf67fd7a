// The level each downstream session on this io thread asked for (logging/setLevel), kept for
// the upstream clients this thread makes after it asked (federation_view::maker): every
// upstream session of the client gets the level, those of a client made later too. Forgotten
// when the session ends (downstream_sessions::session_ended), so it holds no more entries
// than the session table.
//
// Threading: the io thread's.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

namespace gate::gateway {

class session_log_levels {
public:
    // Kept only where clients are made later (the first io thread makes all with its view:
    // nothing is kept there), and only for a session still open: a setLevel that waited in the
    // stages while its session ended keeps nothing.
    void keep_while(std::function<bool(const std::string&)> open) { open_ = std::move(open); }
    void set(const std::string& session, std::string level) {
        if (open_ && open_(session))
            levels_[session] = std::move(level);
    }
    void forget(const std::string& session) { levels_.erase(session); }
    // Each session's level, by session.
    const std::unordered_map<std::string, std::string>& all() const { return levels_; }

private:
    std::function<bool(const std::string&)> open_;
    std::unordered_map<std::string, std::string> levels_;
};

} // namespace gate::gateway
