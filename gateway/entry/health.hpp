// GET /health: pings every upstream concurrently within a 5 s budget (one that takes each
// caller's credential gets its health probe's handshake, with none, where a caller's new
// session would go). The fan-out is single-flighted and its result reused for 1 s, so a flood
// of probes costs one round.
#pragma once

#include "gateway/upstream/live_federation.hpp"
#include "gateway/upstream/upstream_client.hpp"
#include "transport/io/memoized_flight.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace gate::gateway {

// An upstream's owner and labels as /health and /api/federation show them.
boost::json::object owner_json(const config::owner& o);
boost::json::object labels_json(const config::string_map& labels);

struct health_report {
    bool any_up = false;
    boost::json::object body; // what GET /health answers (without detail when auth is on)
    // The same with every detail (URLs, why an upstream is down, owner, labels): for
    // /api/federation, which answers only a caller allowed to introspect.
    boost::json::object detailed;
};

class health_checker {
public:
    health_checker(std::vector<std::shared_ptr<upstream_client>> upstreams, bool show_detail,
                   std::chrono::milliseconds budget = std::chrono::seconds(5),
                   std::chrono::milliseconds reuse = std::chrono::seconds(1));

    boost::asio::awaitable<health_report> check();
    void invalidate() { memo_.invalidate(); }

private:
    boost::asio::awaitable<health_report> probe();

    std::vector<std::shared_ptr<upstream_client>> upstreams_;
    bool show_detail_;
    std::chrono::milliseconds budget_;
    transport::memoized_flight<health_report> memo_;
};

// The health checker of the federation as it stands (GET /health and /api/federation share its
// rounds), made again from each reload's view at its first round. With several io threads the
// first one's rounds serve every thread (ask_through): each upstream is pinged once per round
// for the process, through the first thread's clients, and no other thread makes a client of
// every upstream to answer a probe (docs/io-threads.md).
class health_watch final : public view_adopter {
public:
    health_watch(const view_source& live, bool show_detail);
    void adopt(const federation_view& next) override;
    // The federation's health now (a round of its own, or one under way, or the last within
    // its reuse).
    boost::asio::awaitable<health_report> report();
    // Every round from now on is `first`'s, run on the thread of `there`.
    void ask_through(health_watch& first, boost::asio::any_io_executor there);

private:
    const view_source& live_;
    bool show_detail_;
    std::shared_ptr<health_checker> now_; // null until a round after start or a reload
    health_watch* first_ = nullptr;
    boost::asio::any_io_executor first_ex_;
};

} // namespace gate::gateway
