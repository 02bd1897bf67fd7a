// One gateway with everything it runs on: the shared store joined at start, the actor system
// and its supervisor, the io_context, and the one reload path every source goes through
// (SIGHUP, --watch, the embedding API). gate's main runs a host on its main thread
// (gateway/program/app.cpp); the embedding API runs one on a thread of its own
// (gateway/program/embedded).
#pragma once

#include "actors/sinks/recorder.hpp"
#include "config/model.hpp"

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway::program {

class gateway_host {
public:
    struct options {
        std::string host = "127.0.0.1";
        std::uint16_t port = 0;
        bool fault_hooks = false;                    // gateway/entry/fault_hooks.hpp: tests only
        std::optional<actors::record_target> record; // gate --record (docs/recording.md)
        // --io-threads (docs/io-threads.md): the first is the caller's (io()); the host runs
        // the others, each polling for up to `io_spin` before it sleeps (io_loop.hpp).
        std::size_t io_threads = 1;
        std::chrono::microseconds io_spin{0};
    };

    // Joins the shared store (server.redisUrl, else REDIS_URL), spawns the actors and binds
    // the listener; throws std::runtime_error saying why it cannot (a store that does not
    // answer, a port in use, a secret missing from the environment).
    gateway_host(std::shared_ptr<const config::document> doc, options opt);
    ~gateway_host();
    gateway_host(const gateway_host&) = delete;
    gateway_host& operator=(const gateway_host&) = delete;

    std::uint16_t port() const;
    // The first io thread's context: the caller runs it (the listener, signals, reloads).
    boost::asio::io_context& io();
    const config::document& document() const;

    // Applies a validated document on the io thread: its secrets are checked, then the
    // gateway swaps it in (the broadcast to the actors). nullopt when applied, else why it was
    // refused; a refused document leaves the running one serving.
    std::optional<std::string> reload(std::shared_ptr<const config::document> next);
    // Stops accepting, drains requests being answered (up to `bound`), gives the audit sinks up
    // to `flush_bound` to deliver what they hold, then stops the io_context.
    static constexpr std::chrono::seconds flush_bound{3};
    void drain(std::chrono::steady_clock::duration bound); // once; later calls do nothing
    // `gate definitions lock`: the lock file's text (gateway::definitions_lock), handed to
    // `done` on the io thread.
    void definitions_lock(std::function<void(bool ok, std::string text)> done);

    // The supervisor stopped on its own (it gave up on a process-wide actor that crashed past
    // its restart intensity, or it crashed itself): its actors are gone, so the host logs one
    // critical line and drains for up to `lost_drain_bound`. Why, once that happened (read on
    // the io thread, or after it stopped); gate then exits with `lost_status`.
    static constexpr std::chrono::seconds lost_drain_bound{2};
    static constexpr int lost_status = 70; // EX_SOFTWARE: systemd's Restart=on-failure restarts
    const std::optional<std::string>& failure() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace gate::gateway::program
