// A call's cancellation, shared by whoever may cancel it and the upstream exchange it runs in
// (docs/protocol-eras.md, "Cancellation"). A 2026-07-28 client cancels by closing its call's
// stream; a session's client by `notifications/cancelled`. What reaches the upstream depends
// on the upstream's era: a 2026-07-28 upstream is told by the closing of the exchange's
// connection, an earlier one by a `notifications/cancelled` naming gate's id for the call
// (disconnection is no cancellation there), after which the exchange is closed too.
#pragma once

#include <functional>
#include <string>
#include <utility>

namespace gate::gateway {

class call_cancel {
public:
    bool requested() const { return requested_; }
    const std::string& reason() const { return reason_; }

    // Cancels the call once: the upstream is told now when a request of the call is on the
    // wire, and no further request of the call is sent.
    void request(std::string reason) {
        if (std::exchange(requested_, true))
            return;
        reason_ = std::move(reason);
        if (auto tell = std::exchange(tell_, {}))
            tell();
        if (auto close = std::exchange(close_, {}))
            close();
    }

    // While one of the call's requests is out: how the upstream is told (set by the request;
    // none for a 2026-07-28 upstream, told by the closing alone), and how its exchange is
    // closed (set by the exchange once on the wire). Both cleared when the exchange ends.
    void telling(std::function<void()> tell) { tell_ = std::move(tell); }
    void closing(std::function<void()> close) { close_ = std::move(close); }
    void off_wire() {
        tell_ = nullptr;
        close_ = nullptr;
    }
    // One exchange of the call ended; the call goes on (an answer's stream resumed): the
    // upstream is still told of a cancellation, and nothing is left to close.
    void not_closing() { close_ = nullptr; }

private:
    bool requested_ = false;
    std::string reason_;
    std::function<void()> tell_, close_;
};

} // namespace gate::gateway
