// Discovery (spec: Discovery section, Log transitions): polls `discovery.url` every
// `intervalMs` with the bearer named by `bearerSecretRef`, merges what it serves with the
// configured upstreams (config/discovery_merge: validated whole; an entry outside the
// containment is left out and the rest applies) and hands a changed merged document to the one
// reload path. Each poll counts one outcome of gate_discovery_syncs_total: applied, unchanged,
// rejected (parse or merged validation failed, or the swap was refused), error (the fetch
// failed); each entry left out of an applied document counts once in
// gate_discovery_refused_upstreams_total and is logged with its fields. A fetch failure is
// logged once per outage and the recovery once; a rejected document once per distinct body.
// What the containment allows is logged whenever a discovery section comes into force.
// Runs on the io thread; the last applied upstreams keep serving whatever a poll finds.
#pragma once

#include "config/load.hpp"
#include "gateway/entry/introspection.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway::program {

class discovery_poller {
public:
    // Swaps a merged document in: nullopt when applied, else why it was refused.
    using apply_fn =
        std::function<std::optional<std::string>(std::shared_ptr<const config::document>)>;
    // One poll's outcome, and how many discovered upstreams an applied document left out.
    using count_fn = std::function<void(std::string_view outcome, std::size_t refused)>;

    discovery_poller(boost::asio::io_context& io, apply_fn apply, count_fn count,
                     std::shared_ptr<discovery_report> status);

    // The configured document in force (at start, and after each reload). A changed discovery
    // section (or none) forgets what the old source served and polls the new one at once.
    void configure(std::shared_ptr<const config::document> configured);
    // The configured document with what the source last served merged in, for a reload: the
    // document itself when there is nothing to merge.
    config::load_result merged(std::shared_ptr<const config::document> configured) const;
    void stop();

private:
    void poll_after(std::chrono::milliseconds delay);
    boost::asio::awaitable<void> poll(std::uint64_t generation);
    void settle(std::optional<std::string> body, const std::string& failure);

    boost::asio::io_context& io_;
    apply_fn apply_;
    count_fn count_;
    std::shared_ptr<discovery_report> status_;
    std::shared_ptr<boost::asio::ssl::context> tls_;
    boost::asio::steady_timer timer_;
    std::shared_ptr<const config::document> configured_;
    std::optional<std::string> served_;   // the body whose upstreams are in force
    std::string served_refusals_;         // the entries it left out, for the status
    std::optional<std::string> rejected_; // the last body refused (logged once)
    bool outage_ = false;
    std::uint64_t generation_ = 0; // bumped when the source changes or polling stops
};

} // namespace gate::gateway::program
