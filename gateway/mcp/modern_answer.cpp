// The answer to a 2026-07-28 client's call from the call's queue (gateway/mcp/parked_inputs):
// its events and answer, streamed once there is more than the answer, or the input_required
// result that parks the call when its upstream asked the client something.
#include "gateway/mcp/modern_answer.hpp"

#include "protocol/json_preserve.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/json_splice.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using namespace boost::asio::experimental::awaitable_operators;

namespace {
// A frame of the call's answer under `id`, the id of the request being answered (a retry has
// its own, not the call's).
std::string with_id(std::string frame, const json::value& id, std::string_view id_text) {
    if (auto spliced = protocol::replace_top_level_member(frame, "id", id_text))
        return std::move(*spliced);
    // An id the splice cannot place (written twice, or with escapes): written out again.
    boost::system::error_code ec;
    auto parsed = json::parse(frame, ec);
    if (ec || !parsed.is_object())
        return frame;
    parsed.as_object()["id"] = id;
    return protocol::serialize_preserving(parsed, frame);
}

// Waits for the call's next frame; true when its client hung up first (its socket turned
// readable with nothing to read). Bytes to read are a pipelined request, no hang-up: the
// socket is not watched again (`watching`).
asio::awaitable<bool> hung_up_waiting(transport::message_queue& out, beast::tcp_stream& stream,
                                      bool& watching) {
    boost::system::error_code wake_ec, hangup_ec; // cancellation is the wake-up
    out.wake.expires_at(asio::steady_timer::time_point::max());
    if (!watching) {
        co_await out.wake.async_wait(asio::redirect_error(asio::use_awaitable, wake_ec));
        co_return false;
    }
    auto& socket = stream.socket();
    auto woke = co_await (out.wake.async_wait(asio::redirect_error(asio::use_awaitable, wake_ec)) ||
                          socket.async_wait(asio::ip::tcp::socket::wait_read,
                                            asio::redirect_error(asio::use_awaitable, hangup_ec)));
    if (woke.index() == 0)
        co_return false;
    char next = 0;
    auto n = socket.receive(asio::buffer(&next, 1), asio::socket_base::message_peek, hangup_ec);
    if (hangup_ec || n == 0)
        co_return true;
    watching = false;
    co_return false;
}

} // namespace

std::string input_required(const json::value& id, const std::string& token,
                           const std::string& input_requests) {
    auto parked =
        json::serialize(protocol::make_result(id, json::object{{"resultType", "input_required"},
                                                               {"inputRequests", json::object{}},
                                                               {"requestState", token}}));
    return protocol::set_member(parked, {"result"}, "inputRequests", input_requests)
        .value_or(parked);
}

asio::awaitable<std::optional<transport::http_reply>>
answer_modern(parked_inputs& inputs, const parked_fleet& fleet, beast::tcp_stream& stream,
              const transport::http_request& req, std::shared_ptr<input_parking> park,
              json::value id) {
    auto& out = *park->out;
    auto id_text = protocol::id_text(id);
    bool streaming = false, watching = true;
    for (;;) {
        bool asking = !park->requests.empty() || park->ask_again;
        if (out.frames.empty() && !asking) {
            if (co_await hung_up_waiting(out, stream, watching)) {
                // Closing the stream is how a 2026-07-28 client cancels its call.
                if (park->cancel)
                    park->cancel->request("the client closed its stream");
                co_return std::nullopt;
            }
            continue;
        }
        std::string frame;
        bool last = false;
        std::optional<std::string> final_text;
        while (!out.frames.empty()) {
            last = out.answered && out.frames.size() == 1;
            auto text = out.take();
            if (last)
                final_text = with_id(std::move(text), id, id_text);
            else
                frame += transport::format_sse(text); // no event ids: 2026-07-28 has no resumption
        }
        if (!last && asking) {
            // Park the call: the client is asked through an input_required result.
            auto asked = parked_inputs::ask(*park);
            auto token = co_await park_call(inputs, fleet, park);
            final_text = input_required(id, token, asked);
            last = true;
        }
        if (last && !streaming && frame.empty()) {
            auto reply =
                transport::http_reply::json(static_cast<http::status>(park->answer_status),
                                            std::move(*final_text)); // 200 until the call answers
            reply.headers = std::move(park->answer_headers);
            co_return reply;
        }
        // The header travels with the first frame, the end of the stream with the last.
        if (final_text)
            frame += transport::format_sse(*final_text);
        if (frame.empty() && !last)
            continue;
        std::string head;
        if (!std::exchange(streaming, true))
            head = transport::event_stream_head(req.version(), "gate", std::nullopt);
        if (co_await transport::write_event_chunk(stream, frame, last, head))
            co_return std::nullopt;
        if (last)
            break;
    }
    co_return std::nullopt;
}

} // namespace gate::gateway
