// What the io thread has to tell the bridge keeper, gathered between two flushes
// (gateway::impl::tell_keeper; docs/sessions.md). Most proxied calls start and end within
// one batch: the keeper needs to hear of such a call only as its session's use (the idle
// timer), never as a call it could cancel, since it is over before the keeper could be asked.
// Folding those pairs (and repeated uses of one session) here keeps the keeper's work per
// batch proportional to the sessions in use, not to the calls made.
#pragma once

#include "actors/bridge_messages.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gate::transport {

class keeper_batch {
public:
    void add(bridge_event e);
    bool empty() const { return kept_ == 0; }
    // The events in the order they happened, folded; the batch starts empty again.
    std::vector<bridge_event> take();

private:
    void keep(bridge_event e);
    // Tells the use unless this batch already does: true if kept.
    bool use(std::string session, std::string upstream, std::optional<std::size_t> at);

    std::vector<std::optional<bridge_event>> events_; // nullopt: folded into an earlier one
    std::size_t kept_ = 0;
    // Keyed by a hash of two strings, checked against the event at the index it names (a
    // collision folds nothing, which is always correct): no key is copied per call.
    // (session, client id) -> the index of its call's start, while the call is open.
    std::unordered_map<std::uint64_t, std::size_t> open_calls_;
    // (session, upstream) -> the index of its use told in this batch.
    std::unordered_map<std::uint64_t, std::size_t> used_;
};

} // namespace gate::transport
