// Incremental parser of a text/event-stream body (WHATWG HTML, "server-sent events").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gate::transport {

struct sse_event {
    std::string id;
    std::string event = "message";
    std::string data;
};

class sse_parser {
public:
    // Feeds the next bytes of the stream; returns the events completed by them.
    std::vector<sse_event> feed(std::string_view bytes);

private:
    void line(std::string_view l, std::vector<sse_event>& out);
    std::string pending_;
    sse_event current_;
    bool has_data_ = false;
};

// One event in wire form: `id:` (when given), `event:` (when not "message"), `data:` lines.
std::string format_sse(std::string_view data, std::string_view id = {},
                       std::string_view event = {});

} // namespace gate::transport
