// What the io thread has to tell the bridge keeper, gathered between two flushes
// (keeper_feed; docs/sessions.md). Most proxied calls start and end within
// one batch: the keeper needs to hear of such a call only as its session's use (the idle
// timer), never as a call it could cancel, since it is over before the keeper could be asked.
// So a call is an `open_call` in its own frame, linked here while it runs: one still open at
// a flush (or when something that cannot be folded is told) reaches the keeper as a start,
// and its end follows; one that ends first is only its session's use. Nothing is copied or
// hashed when a call starts, and uses are folded, so the keeper's work per batch is
// proportional to the sessions in use, not to the calls made.
#pragma once

#include "actors/bridging/bridge_messages.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gate::gateway {

class keeper_batch {
public:
    // A call of a downstream session on its bridged session, while it runs. Lives in the
    // call's frame; the strings it names (the session, the client's id text, the upstream's
    // configured id) outlive the call.
    class open_call {
    public:
        open_call() = default;
        open_call(const open_call&) = delete;
        open_call& operator=(const open_call&) = delete;
        ~open_call(); // unlinked without a word: an end never told stays with its session
        bool running() const { return batch_ != nullptr; }

    private:
        friend class keeper_batch;
        keeper_batch* batch_ = nullptr;
        open_call* prev_ = nullptr;
        open_call* next_ = nullptr;
        const std::string* session_ = nullptr;
        const std::string* client_id_ = nullptr;
        const std::string* upstream_ = nullptr;
        std::int64_t upstream_id_ = 0;
        bool told_ = false; // the keeper holds its start
    };

    keeper_batch() = default;
    keeper_batch(const keeper_batch&) = delete;
    keeper_batch& operator=(const keeper_batch&) = delete;
    ~keeper_batch();

    // The call went to `upstream` as request `upstream_id` (again, with a new id, when the
    // upstream's session was re-initialized).
    void started(open_call& call, const std::string& session, const std::string& client_id,
                 const std::string& upstream, std::int64_t upstream_id);
    // The call is over: its end if the keeper holds its start, else its session's use.
    void ended(open_call& call);
    // Anything else: a use is folded into one this batch already tells; the rest is kept in
    // its place, after the starts of the calls still open.
    void add(actors::bridge_event e);
    bool empty() const { return kept_ == 0 && untold_ == 0; }
    // The events in the order they happened, folded, with the starts of the calls still
    // open; the batch starts empty again.
    std::vector<actors::bridge_event> take();

private:
    void keep(actors::bridge_event e);
    void tell_open_calls();
    void unlink(open_call& call);
    // Tells the use unless this batch already does.
    void use(const std::string& session, const std::string& upstream);

    std::vector<actors::bridge_event> events_;
    std::size_t kept_ = 0;
    open_call* first_ = nullptr; // the calls running, in the order they started
    open_call* last_ = nullptr;
    std::size_t untold_ = 0;
    // (session, upstream) hashed -> the index of its use told in this batch (checked against
    // the event there: a collision folds nothing, which is always correct).
    std::unordered_map<std::uint64_t, std::size_t> used_;
};

} // namespace gate::gateway
