#include "transport/http/sse.hpp"

#include <utility>

namespace gate::transport {

std::vector<sse_event> sse_parser::feed(std::string_view bytes) {
    std::vector<sse_event> out;
    while (!bytes.empty() && !over_bound_) {
        if (std::exchange(skip_lf_, false) && bytes.front() == '\n') {
            bytes.remove_prefix(1);
            continue;
        }
        auto nl = bytes.find_first_of("\r\n");
        if (nl == std::string_view::npos) {
            // The line goes on in the next read: only these bytes are kept, never rescanned.
            if (room_for(bytes.size()))
                pending_.append(bytes);
            break;
        }
        if (pending_.empty()) {
            line(bytes.substr(0, nl), out);
        } else if (room_for(nl)) {
            pending_.append(bytes.substr(0, nl));
            line(pending_, out);
            pending_.clear();
        }
        skip_lf_ = bytes[nl] == '\r';
        bytes.remove_prefix(nl + 1);
    }
    return out;
}

bool sse_parser::room_for(std::size_t more) {
    if (pending_.size() + current_.data.size() + more <= max_event_)
        return true;
    refuse_event();
    return false;
}

void sse_parser::refuse_event() {
    over_bound_ = true;
    pending_ = std::string();
    current_ = sse_event{};
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
        // The line itself may be the one being held: what counts is the data it adds.
        if (current_.data.size() + value.size() + 1 > max_event_)
            return refuse_event();
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
