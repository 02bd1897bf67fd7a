// A request being answered on a downstream session: the count that keeps the session from
// being idle while it runs. The entry holds one for each message (pipeline/entry.hpp); the
// session table hands them out (mcp/session_table.hpp).
#pragma once

#include <cstddef>
#include <memory>

namespace gate::gateway {

// A request being answered on a session, for as long as this lives (session_table::call_on):
// the session is not idle meanwhile. It holds the session's count, not the table, so a
// coroutine frame destroyed after the gateway (with its io_context) touches nothing freed; a
// session ended meanwhile keeps its count to itself.
class session_call {
public:
    session_call() = default;
    explicit session_call(std::shared_ptr<std::size_t> calls) : calls_(std::move(calls)) {
        if (calls_)
            ++*calls_;
    }
    session_call(session_call&& other) noexcept : calls_(std::move(other.calls_)) {}
    session_call& operator=(session_call&& other) noexcept {
        if (this != &other) {
            end();
            calls_ = std::move(other.calls_);
        }
        return *this;
    }
    ~session_call() { end(); }

private:
    void end() {
        if (calls_)
            --*calls_;
        calls_.reset();
    }
    std::shared_ptr<std::size_t> calls_;
};

} // namespace gate::gateway
