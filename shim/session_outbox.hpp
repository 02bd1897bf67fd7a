// What one gate-stdio session holds toward its client: the server's messages queued for each
// of its client streams (a POST answered as an event stream, the GET stream) and for the
// backlog of a GET stream not open yet, plus the bytes being written, all counted against one
// budget. A client that stops reading while its child keeps writing would otherwise grow the
// shim without bound (1.3 GB in 10 s, issue 32). Past the budget the holder of the most bytes
// gives way: a stream is cut (what it held is dropped), the backlog drops its oldest message.
// The stream that stopped reading is the one holding the most, so a client that reads keeps
// its messages. Plain C++: the shell closes the streams this reports as cut.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace gate::shim {

class session_outbox {
public:
    using stream_id = std::uint64_t;
    static constexpr stream_id backlog = 0; // for the GET stream, until one opens

    // `max_bytes` should be at least the largest message the child may write (the framing
    // cap), so one message of any admissible size fits a session that holds nothing else.
    session_outbox(std::size_t max_bytes, std::size_t max_backlog)
        : max_bytes_(max_bytes), max_backlog_(max_backlog) {}

    // A client stream starts (a POST that may answer as an event stream, or the GET stream).
    stream_id open();
    // It ends: whatever it still holds is released.
    void close(stream_id id);
    // The GET stream `id` opens: the messages held for it in the backlog move to it.
    void adopt_backlog(stream_id id);

    struct cut_stream {
        stream_id id;
        std::size_t bytes; // what it held, queued and being written
    };
    struct pushed {
        bool queued = true;              // false: `to` is gone (cut now or before), and so is it
        std::vector<cut_stream> cut;     // streams cut to make room; the shell closes them
        std::size_t dropped = 0;         // messages lost with cut streams (`message` included)
        std::size_t backlog_dropped = 0; // the backlog's oldest, dropped to make room
    };
    // Queues `message` for `to` (a stream, or `backlog`), making room first. A stream that
    // was cut (or closed) takes nothing more.
    pushed push(stream_id to, std::string message);

    // Messages queued for `id` and not taken yet.
    bool has_queued(stream_id id) const;
    // Every message queued for `id`, oldest first, for one write; their bytes stay held until
    // `written(id)`, since the write holds them too.
    std::vector<std::string> take(stream_id id);
    void written(stream_id id);

    // Bytes held: by the session, and by one stream (queued plus being written).
    std::size_t held() const { return held_; }
    std::size_t held(stream_id id) const;
    std::size_t queued_messages(stream_id id) const;
    std::size_t max_bytes() const { return max_bytes_; }
    std::size_t max_backlog() const { return max_backlog_; }

private:
    struct queue {
        std::deque<std::string> messages;
        std::size_t queued_bytes = 0;
        std::size_t writing_bytes = 0;
        std::size_t held() const { return queued_bytes + writing_bytes; }
    };
    void drop_oldest_held(queue& q);
    // Frees room for `incoming` more bytes; false when `to` itself had to go.
    bool make_room(stream_id to, std::size_t incoming, pushed& out);

    std::size_t max_bytes_;
    std::size_t max_backlog_;
    std::size_t held_ = 0;
    stream_id next_ = backlog;
    std::map<stream_id, queue> queues_{{backlog, queue{}}};
};

} // namespace gate::shim
