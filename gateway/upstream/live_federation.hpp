// The federation as it stands now: the view every request loads when it starts (its snapshot,
// upstream entries and clients, and the server section's settings), replaced whole by a reload, and
// the components that act on a new one. Requests keep the view they loaded.
#pragma once

#include "actors/federation/federation.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "transport/http/host_guard.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gate::actors {
struct snapshot;
class guard_board;
} // namespace gate::actors

namespace gate::gateway {

class upstream_client;

// The federation a request sees: one snapshot, its upstream entries indexed like it (what
// every io thread's client of each shares), this thread's clients of them, and what the
// server section makes of each request. Loaded once at request entry; a reload swaps in a new
// one without touching requests in flight.
//
// On the first io thread every client is made with the view. On the others a client is made
// at the first request that needs it (docs/io-threads.md): a federation of a thousand
// upstreams keeps one client of each per process, not per thread, until traffic reaches it
// there. What only reads the entry (its configuration, guard board, tool facts, identity) never
// makes one; what iterates clients (close, end a session, count) iterates those made.
struct federation_view {
    std::shared_ptr<const actors::snapshot> snap;
    // server.allowedHosts, stage 1's on every endpoint (none: every host is refused).
    transport::host_guard guard{{}, false};
    // How this thread makes a client the view does not have yet (null: every client is made
    // with the view). Set by the gateway; called on the view's own thread.
    std::function<std::shared_ptr<upstream_client>(const federation_view&, std::size_t)> maker;

    // Entry `i`: its siblings, and its client when made already.
    void add(std::shared_ptr<upstream_siblings> entry,
             std::shared_ptr<upstream_client> client = nullptr);
    // A client made on its own (tests): its entry is its siblings.
    void add(std::shared_ptr<upstream_client> client);

    std::size_t size() const { return entries_.size(); }
    // What every io thread's client of entry `i` shares. Never makes a client.
    const std::shared_ptr<upstream_siblings>& entry(std::size_t i) const { return entries_[i]; }
    const config::upstream& config(std::size_t i) const { return *entries_[i]->entry; }
    std::shared_ptr<const tool_facts> facts(std::size_t i) const {
        return entries_[i]->facts->now();
    }
    const std::shared_ptr<actors::guard_board>& board(std::size_t i) const {
        return entries_[i]->board;
    }
    // Whether the upstream takes each caller's own credential.
    bool per_caller(std::size_t i) const { return config(i).auth.per_caller(); }
    // What the entry's last handshake on any thread answered (empty: none yet).
    std::shared_ptr<const boost::json::object> identity(std::size_t i) const;
    // The entry configured as `id`.
    std::optional<std::size_t> index_of(std::string_view id) const;
    // The same entry (its siblings) in this view.
    std::optional<std::size_t> index_of(const upstream_siblings& entry) const;

    // This thread's client of entry `i`, made now if it was not.
    const std::shared_ptr<upstream_client>& client_at(std::size_t i) const;
    // Its client if made, else null.
    upstream_client* made(std::size_t i) const { return clients_[i].get(); }
    const std::shared_ptr<upstream_client>& made_ptr(std::size_t i) const { return clients_[i]; }
    // The client made of the entry configured as `id`; null when there is none (not made, or
    // no such entry).
    upstream_client* made(const std::string& id) const;
    // Every client made so far, in entry order: held, for a caller that awaits between them
    // (a client made meanwhile is not among them).
    std::vector<std::shared_ptr<upstream_client>> made_clients() const;
    template <class Visit> void for_each_made(Visit visit) const {
        for (const auto& c : clients_)
            if (c)
                visit(*c);
    }
    // Each entry's guard board, for the supervisor that keeps their actors.
    std::vector<std::shared_ptr<actors::guard_board>> boards() const;

private:
    std::vector<std::shared_ptr<upstream_siblings>> entries_;
    mutable std::vector<std::shared_ptr<upstream_client>> clients_;
};

// Where a component that outlives requests reads the federation as it stands now.
class view_source {
public:
    virtual std::shared_ptr<const federation_view> current_view() const = 0;

protected:
    ~view_source() = default;
};

// A component that keeps something made from the view (a health checker over its clients, the
// sessions table's limits) and makes it again from a reload's.
class view_adopter {
public:
    virtual void adopt(const federation_view& next) = 0;

protected:
    ~view_adopter() = default;
};

class live_federation final : public view_source {
public:
    explicit live_federation(std::shared_ptr<const federation_view> first)
        : now_(std::move(first)) {}

    std::shared_ptr<const federation_view> current_view() const override { return now_; }
    const federation_view& operator*() const { return *now_; }
    const federation_view* operator->() const { return now_.get(); }

    // The components told of each reload's view, in the order they are added (the
    // composition root lists them); a function for a part that is not a component of ours.
    void tell(view_adopter& a) {
        adopters_.emplace_back([&a](const federation_view& v) { a.adopt(v); });
    }
    void tell(std::function<void(const federation_view&)> f) { adopters_.push_back(std::move(f)); }

    // A reload's view, from here on: every request that starts loads it, and each component
    // told of reloads adopts it in turn (the broadcast the actors get as one snapshot too).
    void replace(std::shared_ptr<const federation_view> next) {
        now_ = std::move(next);
        for (const auto& adopt : adopters_)
            adopt(*now_);
    }

private:
    std::shared_ptr<const federation_view> now_;
    std::vector<std::function<void(const federation_view&)>> adopters_;
};

} // namespace gate::gateway
