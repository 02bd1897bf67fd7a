// A one-shot reply channel carried inside an actor message. The requester (an Asio coroutine)
// supplies the function; the actor calls it once. If every copy of the channel is destroyed
// without a reply (the actor died, the message was dropped), the function receives nullopt,
// so no requester ever waits forever.
#pragma once

#include <functional>
#include <memory>
#include <optional>

namespace gate::actors {

template <class T> class reply_to {
public:
    using function = std::function<void(std::optional<T>)>;

    reply_to() = default;
    explicit reply_to(function fn) : state_(std::make_shared<state>(std::move(fn))) {}

    void operator()(T value) const {
        if (state_ && !state_->fired) {
            state_->fired = true;
            state_->fn(std::move(value));
        }
    }

private:
    struct state {
        explicit state(function f) : fn(std::move(f)) {}
        state(const state&) = delete;
        state& operator=(const state&) = delete;
        ~state() {
            if (!fired && fn)
                fn(std::nullopt);
        }
        function fn;
        bool fired = false;
    };
    std::shared_ptr<state> state_;
};

} // namespace gate::actors
