// The io thread's side of a recording (gate --record; docs/recording.md): the exit stage and
// every upstream client hand it what they heard; what one turn of the loop heard goes to the
// recorder actor as one message, like the audit sink's feed (sink_feed.cpp). Only exists with
// --record: without it the gateway holds no tap and does no recording work at all.
#pragma once

#include "actors/sinks/recorder.hpp"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <vector>

namespace gate::gateway {

class traffic_tap : public std::enable_shared_from_this<traffic_tap> {
public:
    // Events waiting for the recorder at most (a few seconds of a busy gateway's traffic).
    static constexpr std::int64_t default_capacity = 100000;

    // `backlog` is the one the recorder was spawned with.
    traffic_tap(boost::asio::io_context& io, actors::recorder_actor sink,
                actors::record_backlog backlog, std::shared_ptr<actors::delivery_tally> tally,
                std::int64_t capacity = default_capacity);

    // The number the next recorded request goes by (1, 2, ...), one count for every io
    // thread's tap (share_count).
    std::uint64_t next_seq() { return seq_->fetch_add(1, std::memory_order_relaxed) + 1; }
    // Counts with `other`: the taps of the io threads number the requests of one recording.
    void share_count(const traffic_tap& other) { seq_ = other.seq_; }
    void heard(actors::heard_event e);
    // What was heard this turn, to the recorder now (before a flush).
    void feed();
    const actors::recorder_actor& sink() const { return sink_; }
    const actors::delivery_tally& tally() const { return *tally_; }

private:
    boost::asio::io_context& io_;
    actors::recorder_actor sink_;
    actors::record_backlog backlog_;
    std::shared_ptr<actors::delivery_tally> tally_;
    std::int64_t capacity_;
    std::vector<actors::heard_event> pending_;
    bool posted_ = false;
    std::shared_ptr<std::atomic<std::uint64_t>> seq_ =
        std::make_shared<std::atomic<std::uint64_t>>(0);
};

} // namespace gate::gateway
