#include "gateway/mcp/session_table.hpp"

#include "gateway/pipeline/request_context.hpp"
#include "protocol/random_id.hpp"

#include <algorithm>
#include <boost/asio/ip/address_v6.hpp>

namespace gate::gateway {

namespace {
void wake(downstream_session& s) {
    for (auto& w : s.streams)
        if (auto t = w.lock())
            t->cancel();
}

bool streaming(const downstream_session& s) {
    return std::any_of(s.streams.begin(), s.streams.end(), [](auto& w) { return !w.expired(); });
}

bool idle_now(const downstream_session& s) {
    return *s.calls == 0 && !streaming(s);
}
} // namespace

std::string share_holder(const policy::caller_ref& who, const boost::asio::ip::address& peer) {
    // A principal's key has a newline (issuer, subject); an address never does, so no
    // anonymous caller shares a principal's share.
    if (who)
        return who->issuer + '\n' + who->subject;
    if (peer.is_v6() && !peer.to_v6().is_v4_mapped()) {
        auto bytes = peer.to_v6().to_bytes();
        std::fill(bytes.begin() + 8, bytes.end(), 0);
        return "anonymous " + boost::asio::ip::address_v6(bytes).to_string() + "/64";
    }
    auto v4 = peer.is_v6()
                  ? boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, peer.to_v6())
                  : peer.to_v4();
    return "anonymous " + v4.to_string();
}

void session_table::set_limits(session_limits limits, std::optional<among_threads> threads) {
    std::lock_guard lock(mutex_);
    if (threads) {
        place_ = threads->place;
        census_ = std::move(threads->census);
    }
    limits_ = limits;
}

session_limits session_limits_of(const config::server& s) {
    return {static_cast<std::size_t>(s.sessions.max),
            static_cast<std::size_t>(s.sessions.per_principal)};
}

void session_table::adopt(const federation_view& next) {
    set_limits(session_limits_of(next.snap->doc->server));
}

session_table::admission session_table::open(opening o, time_point now) {
    auto id = protocol::random_id_in(place_);
    std::lock_guard lock(mutex_);
    return admit(id, std::move(o), now);
}

session_table::admission session_table::adopt(const std::string& id, opening o, time_point now) {
    std::lock_guard lock(mutex_);
    if (sessions_.contains(id))
        return admission{id, std::nullopt, {}};
    return admit(id, std::move(o), now);
}

session_table::admission session_table::admit(const std::string& id, opening o, time_point now) {
    admission out;
    session_shares::idle_test idle = [this](const std::string& s) {
        auto it = sessions_.find(s);
        return it != sessions_.end() && idle_now(it->second);
    };
    auto verdict = census_ ? counted_verdict(o.holder, now, idle)
                           : shares_.admit(o.holder, limits_, now, idle);
    if (!verdict.admit) {
        out.refused = verdict.reason;
        return out;
    }
    if (verdict.evict) {
        erase(sessions_.find(*verdict.evict), !census_);
        out.evicted = eviction{std::move(*verdict.evict), std::move(verdict.evicted_holder),
                               verdict.evicted_idle, verdict.reason};
    }
    shares_.opened(id, o.holder, now);
    sessions_[id] = downstream_session{std::move(o.protocol_version),
                                       std::move(o.capabilities),
                                       now,
                                       {},
                                       {},
                                       0,
                                       std::move(o.owner),
                                       std::move(o.who),
                                       std::make_shared<std::size_t>(0),
                                       {}};
    out.id = id;
    return out;
}

session_shares::verdict session_table::counted_verdict(const std::string& holder, time_point now,
                                                       const session_shares::idle_test& idle) {
    auto full = census_->claim(holder, limits_);
    session_shares::verdict v;
    if (!full) {
        v.admit = true; // counted: the process holds room for it
        return v;
    }
    // Full in the process: an idle session this table keeps makes room, its place in the
    // census handed to the new session. The holder's own at its share; with the table full,
    // one of whoever holds the most above the process's fair share and has one idle here.
    if (*full == share_reason::caller_share) {
        v = shares_.first_idle_of({holder}, share_reason::caller_share, now, idle);
    } else {
        auto order = census_->above_fair_share(shares_.holder_names(), holder, limits_);
        order.push_back(holder); // at or under the fair share, it may still give up its own
        v = shares_.first_idle_of(order, share_reason::table_full, now, idle);
    }
    if (v.admit && !(v.evict && census_->hand_over(v.evicted_holder, holder, limits_))) {
        auto why = v.reason;
        v = {};
        v.reason = why;
    }
    return v;
}

void session_table::uncount(const std::string& id, bool counted) {
    auto holder = shares_.closed(id);
    if (counted && census_ && !holder.empty())
        census_->release(holder);
}

void session_table::erase(std::unordered_map<std::string, downstream_session>::iterator it,
                          bool counted) {
    wake(it->second);
    uncount(it->first, counted);
    sessions_.erase(it);
}

session_call session_table::call_on(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    return it == sessions_.end() ? session_call() : session_call(it->second.calls);
}

std::vector<std::string> session_table::used_since(time_point since) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [id, s] : sessions_)
        if (s.last_used >= since)
            out.push_back(id);
    return out;
}

std::shared_ptr<const principal> session_table::principal_of(const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : it->second.who;
}

session_table::owned_look session_table::look_up(const std::string& id, std::string_view owner,
                                                 std::optional<time_point> use) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return {};
    if (it->second.owner != owner)
        return {owner_found::another, {}};
    if (!use)
        return {owner_found::owner, {}};
    it->second.last_used = *use;
    shares_.used(id, *use);
    return {owner_found::owner, session_call(it->second.calls)};
}

boost::json::object session_table::capabilities(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    return it == sessions_.end() ? boost::json::object{} : it->second.capabilities;
}

void session_table::queue(downstream_session& s, const std::string& message) {
    s.outbox.push_back(message);
    s.outbox_bytes += message.size();
    // The newest message always stays, however large: it is what the client waits for.
    while (s.outbox.size() > 1 &&
           (s.outbox.size() > max_outbox_messages || s.outbox_bytes > max_outbox_bytes)) {
        s.outbox_bytes -= s.outbox.front().size();
        s.outbox.pop_front();
        ++dropped_;
    }
}

std::uint64_t session_table::dropped_messages() const {
    std::lock_guard lock(mutex_);
    return dropped_;
}

bool session_table::deliver(const std::string& id, const std::string& message) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return false;
    auto& s = it->second;
    queue(s, message);
    wake(s);
    return true;
}

std::vector<std::string> session_table::selected_tools(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    return it == sessions_.end() ? std::vector<std::string>{} : it->second.tool_selection;
}

bool session_table::select_tools(const std::string& id, std::vector<std::string> names) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return false;
    auto& s = it->second;
    if (s.tool_selection == names)
        return true; // its list did not change: nothing to tell
    s.tool_selection = std::move(names);
    queue(s, R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
    wake(s);
    return true;
}

bool session_table::contains(const std::string& id) const {
    std::lock_guard lock(mutex_);
    return sessions_.contains(id);
}

std::optional<std::string> session_table::touch(const std::string& id, time_point now) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return std::nullopt;
    it->second.last_used = now;
    shares_.used(id, now);
    return it->second.protocol_version;
}

std::vector<std::string> session_table::expire_idle(time_point now,
                                                    std::chrono::steady_clock::duration idle) {
    std::lock_guard lock(mutex_);
    std::vector<std::string> gone;
    std::erase_if(sessions_, [&](const auto& entry) {
        bool idle_out = idle_now(entry.second) && now - entry.second.last_used >= idle;
        if (idle_out) {
            gone.push_back(entry.first);
            uncount(entry.first);
        }
        return idle_out;
    });
    return gone;
}

session_table::attach_result
session_table::attach_stream(const std::string& id,
                             std::weak_ptr<boost::asio::steady_timer> stream) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return attach_result::unknown_session;
    auto& streams = it->second.streams;
    std::erase_if(streams, [](auto& w) { return w.expired(); });
    if (streams.size() >= max_streams_per_session)
        return attach_result::too_many_streams;
    streams.push_back(std::move(stream));
    return attach_result::attached;
}

void session_table::broadcast(const std::string& message) {
    std::lock_guard lock(mutex_);
    for (auto& [id, s] : sessions_) {
        // Only sessions with an open stream can receive anything; a client that never reads
        // its stream must not grow the gateway without bound either.
        if (!streaming(s))
            continue;
        queue(s, message);
        wake(s);
    }
}

std::vector<std::string> session_table::take_outbox(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return {};
    std::vector<std::string> out(std::make_move_iterator(it->second.outbox.begin()),
                                 std::make_move_iterator(it->second.outbox.end()));
    it->second.outbox.clear();
    it->second.outbox_bytes = 0;
    return out;
}

bool session_table::close(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end())
        return false;
    erase(it);
    return true;
}

std::vector<std::string> session_table::close_all() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> gone;
    for (auto& [id, s] : sessions_) {
        wake(s);
        gone.push_back(id);
        uncount(id);
    }
    sessions_.clear();
    shares_.clear();
    return gone;
}

std::size_t session_table::size() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
}

std::size_t session_table::held_by(const std::string& holder) const {
    std::lock_guard lock(mutex_);
    return shares_.held_by(holder);
}

} // namespace gate::gateway
