// The federation as it stands now: the view every request loads when it starts (its snapshot,
// upstream clients and the server section's settings), replaced whole by a reload, and the
// components that act on a new one. Requests keep the view they loaded.
#pragma once

#include "actors/federation/federation.hpp"
#include "transport/http/host_guard.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gate::actors {
struct snapshot;
class guard_board;
} // namespace gate::actors

namespace gate::gateway {

class upstream_client;

// The federation a request sees: one snapshot, the upstream clients indexed like it, and
// what the server section makes of each request. Loaded once at request entry; a reload
// swaps in a new one without touching requests in flight.
struct federation_view {
    std::shared_ptr<const actors::snapshot> snap;
    std::vector<std::shared_ptr<upstream_client>> clients;
    // server.allowedHosts, stage 1's on every endpoint (none: every host is refused).
    transport::host_guard guard{{}, false};

    // The client of the upstream configured as `id`; null when this view has none.
    upstream_client* client(const std::string& id) const;
    // Each client's guard board, for the supervisor that keeps their actors.
    std::vector<std::shared_ptr<actors::guard_board>> boards() const;
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
