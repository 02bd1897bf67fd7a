// What the units of one upstream exchange share beyond its header (upstream_exchange.cpp, the
// resumption of an answer's stream, stream_resumption.cpp, and a session's own exchanges,
// session_exchanges.cpp): how a call's cancellation closes the exchange on the wire, the
// reading state of one answer, and an event stream's next events.
#pragma once

#include "gateway/upstream/call_cancel.hpp"
#include "gateway/upstream/upstream_client_parts.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "transport/http/fields_arena.hpp"
#include "transport/http/header_writer.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstddef>
#include <functional>
#include <tuple>
#include <vector>

namespace gate::gateway {

// The most gate reads of one answer, whether JSON or one event of a stream (the same bound as
// the event streams' own, transport/http/sse.hpp): past it the answer fails.
inline constexpr std::size_t max_answer_bytes = transport::default_max_event_bytes;

// A request whose head would carry a control character is never sent: nothing reached the
// upstream, which is not at fault for what gate refused to write.
inline upstream_failure refused_head(const transport::header_writer& head) {
    auto f = upstream::parts::fail(upstream_failure::kind::protocol,
                                   "gate refused to send the header " + head.refused() +
                                       " upstream: its value holds a control character");
    f.upstream_at_fault = false;
    return f;
}

// What the answers of one upstream being read hold together (upstream_state::answer_bytes_read):
// four answers at their bound. Past it the answer whose read went past fails, so an upstream
// cannot make gate hold an answer's bound for every call in flight at it.
inline constexpr std::size_t max_upstream_answer_bytes = 4 * max_answer_bytes;

// One reader's share of what an upstream's readers hold together (its answers being read, or
// the unfinished events of its long-lived streams), given back when the reader ends.
class held_share {
public:
    explicit held_share(std::size_t& total) : total_(total) {}
    ~held_share() {
        if (mine_ != 0) // a reader whose read is over holds nothing, and touches nothing
            total_ -= mine_;
    }
    held_share(const held_share&) = delete;
    held_share& operator=(const held_share&) = delete;
    // This reader now holds `held`; false when the upstream's readers together hold over `most`.
    bool hold(std::size_t held, std::size_t most) {
        total_ = total_ - mine_ + held;
        mine_ = held;
        return total_ <= most;
    }

private:
    std::size_t& total_;
    std::size_t mine_ = 0;
};

// The events the next read of an event stream completes (none, and `ec` set, when it failed).
// The parser keeps what an unfinished event needs.
template <class Stream, class Parser>
boost::asio::awaitable<std::vector<transport::sse_event>>
next_events(Stream& stream, boost::beast::flat_buffer& buf, Parser& parser,
            transport::sse_parser& sse, boost::system::error_code& ec) {
    co_await boost::beast::http::async_read_some(
        stream, buf, parser, boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    if (ec)
        co_return std::vector<transport::sse_event>{};
    auto& body = parser.get().body();
    auto events = sse.feed(body);
    body.clear();
    co_return events;
}

// What a call reads of its answer at most: its own bound when it has a tighter one.
inline std::size_t answer_limit_of(const call_context& ctx) {
    return ctx.answer_limit != 0 && ctx.answer_limit < max_answer_bytes ? ctx.answer_limit
                                                                        : max_answer_bytes;
}

// A call's cancellation closes its exchange's connection while the exchange is on the wire
// (at once, when it came before).
class cancel_watch {
public:
    cancel_watch(call_cancel* cancel, std::function<void()> close) : cancel_(cancel) {
        if (!cancel_)
            return;
        if (cancel_->requested())
            close();
        else
            cancel_->closing(std::move(close));
    }
    ~cancel_watch() {
        if (cancel_)
            cancel_->not_closing(); // the request's own telling stays while the call runs
    }
    cancel_watch(const cancel_watch&) = delete;
    cancel_watch& operator=(const cancel_watch&) = delete;

private:
    call_cancel* cancel_;
};

struct upstream_exchange::answer_reader {
    // `upstream_total`: what the upstream's answers being read hold together
    // (upstream_state::answer_bytes_read).
    answer_reader(std::size_t most, std::size_t& upstream_total)
        : limit(most), share(upstream_total),
          parser(std::piecewise_construct, std::make_tuple(),
                 std::make_tuple(transport::arena_allocator<char>(&arena))) {
        parser.body_limit(most);
    }
    // This answer now holds `held`: false (a body_limit in `ec`) when the upstream's answers
    // together went past max_upstream_answer_bytes with it.
    bool hold(std::size_t held, boost::system::error_code& ec) {
        if (share.hold(held, max_upstream_answer_bytes))
            return true;
        over_upstream = true;
        ec = boost::beast::http::error::body_limit;
        return false;
    }
    // Its read is over: what it held is the upstream's again.
    void release() { share.hold(0, max_upstream_answer_bytes); }

    std::size_t limit; // of the body, and of each event of an event stream
    held_share share;
    bool over_upstream = false; // hold() refused it
    boost::beast::flat_buffer buf;
    // The answer's fields (five or six) in the reader's own buffer, not one allocation each:
    // the reader is one allocation already, and the fields die with it.
    transport::fields_arena arena;
    boost::beast::http::response_parser<boost::beast::http::string_body,
                                        transport::arena_allocator<char>>
        parser;
};

} // namespace gate::gateway
