#include "transport/http/sse.hpp"

#include <utility>

namespace gate::transport {

std::vector<sse_event> sse_parser::feed(std::string_view bytes) {
    std::vector<sse_event> out;
    pending_.append(bytes);
    std::size_t start = 0;
    for (;;) {
        auto nl = pending_.find_first_of("\r\n", start);
        if (nl == std::string::npos)
            break;
        // A CR at the very end may be the first half of CRLF: wait for the next byte.
        if (pending_[nl] == '\r' && nl + 1 == pending_.size())
            break;
        line(std::string_view(pending_).substr(start, nl - start), out);
        start = nl + 1;
        if (pending_[nl] == '\r' && pending_[start] == '\n')
            ++start;
    }
    pending_.erase(0, start);
    return out;
}

void sse_parser::line(std::string_view l, std::vector<sse_event>& out) {
    if (l.empty()) {
        // EventSource takes an event's id when the event ends, with data or not.
        if (pending_id_)
            last_event_id_ = std::move(*std::exchange(pending_id_, std::nullopt));
        if (has_data_) {
            if (!current_.data.empty() && current_.data.back() == '\n')
                current_.data.pop_back();
            out.push_back(std::move(current_));
        }
        current_ = sse_event{};
        has_data_ = false;
        return;
    }
    if (l.front() == ':')
        return;
    auto colon = l.find(':');
    auto field = l.substr(0, colon);
    std::string_view value;
    if (colon != std::string_view::npos) {
        value = l.substr(colon + 1);
        if (!value.empty() && value.front() == ' ')
            value.remove_prefix(1);
    }
    if (field == "data") {
        current_.data.append(value).push_back('\n');
        has_data_ = true;
    } else if (field == "event") {
        current_.event = value;
    } else if (field == "id") {
        current_.id = value;
        // EventSource ignores an id holding NUL; a long one is no id gate sends back.
        if (value.find('\0') == std::string_view::npos && value.size() <= max_event_id)
            pending_id_ = std::string(value);
    } else if (field == "retry") {
        // Digits only, as EventSource reads it; the caller bounds the wait.
        if (!value.empty() && value.size() <= 9 &&
            value.find_first_not_of("0123456789") == std::string_view::npos)
            retry_ = std::chrono::milliseconds(std::stoll(std::string(value)));
    }
}

std::string format_sse(std::string_view data, std::string_view id, std::string_view event) {
    std::string out;
    out.reserve(data.size() + 32);
    if (!id.empty())
        out.append("id: ").append(id).push_back('\n');
    if (!event.empty() && event != "message")
        out.append("event: ").append(event).push_back('\n');
    std::size_t start = 0;
    for (;;) {
        auto nl = data.find('\n', start);
        out.append("data: ").append(data.substr(start, nl - start)).push_back('\n');
        if (nl == std::string_view::npos)
            break;
        start = nl + 1;
    }
    out.push_back('\n');
    return out;
}

} // namespace gate::transport
