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

struct sse_event {
    std::string id;
    std::string event = "message";
    std::string data;
};

class sse_parser {
public:
    // Feeds the next bytes of the stream; returns the events completed by them.
    std::vector<sse_event> feed(std::string_view bytes);
    // The stream's last event id (of an ended event, with data or not, as EventSource keeps it)
    // and the reconnection time its last `retry:` line set: what a client resumes with.
    const std::string& last_event_id() const { return last_event_id_; }
    std::optional<std::chrono::milliseconds> retry() const { return retry_; }

private:
    void line(std::string_view l, std::vector<sse_event>& out);
    std::string pending_;
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
