// Incremental parser of a text/event-stream body (WHATWG HTML, "server-sent events").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::transport {

// Longer event ids are not remembered (gate would send them back in a header).
inline constexpr std::size_t max_event_id = 1024;
// What one event may hold unless its reader says otherwise: its data and its unfinished line.
inline constexpr std::size_t default_max_event_bytes = 64 * 1024 * 1024;

struct sse_event {
    std::string id;
    std::string event = "message";
    std::string data;
};

class sse_parser {
public:
    // `max_event`: the most one event (its data and the line being read) may hold. Past it the
    // stream is over its bound: nothing more is read from it and its reader drops it, since
    // a peer that never ends an event would otherwise grow gate's memory without end.
    explicit sse_parser(std::size_t max_event = default_max_event_bytes) : max_event_(max_event) {}
    // Feeds the next bytes of the stream; returns the events completed by them. Each byte is
    // looked at once: an endless line costs no more than its length.
    std::vector<sse_event> feed(std::string_view bytes);
    // Whether an event went past the bound (the events before it were returned).
    bool over_bound() const { return over_bound_; }
    std::size_t max_event() const { return max_event_; }
    // What the event being read holds now (its data and its unfinished line).
    std::size_t held() const { return pending_.size() + current_.data.size(); }
    // The stream's last event id (of an ended event, with data or not, as EventSource keeps it)
    // and the reconnection time its last `retry:` line set: what a client resumes with.
    const std::string& last_event_id() const { return last_event_id_; }
    std::optional<std::chrono::milliseconds> retry() const { return retry_; }

private:
    void line(std::string_view l, std::vector<sse_event>& out);
    // Whether `more` bytes fit in the event being read; false (and over_bound) when not.
    bool room_for(std::size_t more);
    void refuse_event();
    std::size_t max_event_;
    bool over_bound_ = false;
    bool skip_lf_ = false; // the last line ended with CR: an LF right after is its CRLF's
    std::string pending_;  // the start of a line whose end has not come yet
    sse_event current_;
    bool has_data_ = false;
    std::string last_event_id_;
    std::optional<std::string> pending_id_; // the id of the event not ended yet
    std::optional<std::chrono::milliseconds> retry_;
};

// One event in wire form: `id:` (when given), `event:` (when not "message"), `data:` lines.
std::string format_sse(std::string_view data, std::string_view id = {},
                       std::string_view event = {});

} // namespace gate::transport
