// What the units of one upstream exchange share beyond its header (upstream_exchange.cpp, and
// the resumption of an answer's stream, stream_resumption.cpp): how a call's cancellation
// closes the exchange on the wire, and the reading state of one answer.
#pragma once

#include "gateway/upstream/call_cancel.hpp"
#include "gateway/upstream/upstream_exchange.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstddef>
#include <functional>

namespace gate::transport {

inline constexpr std::size_t max_answer_bytes = 64 * 1024 * 1024;

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
    answer_reader() { parser.body_limit(max_answer_bytes); }
    boost::beast::flat_buffer buf;
    boost::beast::http::response_parser<boost::beast::http::string_body> parser;
};

} // namespace gate::transport
