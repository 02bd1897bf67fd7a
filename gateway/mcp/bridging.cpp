// Server-initiated traffic through the gateway: named calls on the client's bridged session
// with the upstream's messages streamed before the answer, the client's answers and
// notifications back to the upstream they concern, session-wide upstream traffic (change
// notifications, resource updates, messages outside any call) to the right clients.
#include "actors/bridging/bridge_messages.hpp"
#include "actors/federation/router_messages.hpp"
#include "gateway/entry/gateway_impl.hpp"
#include "gateway/mcp/fan_out.hpp"
#include "gateway/mcp/modern_answer.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_splice.hpp"
#include "protocol/modern_request.hpp"
#include "transport/bridge.hpp"
#include "transport/http/event_stream.hpp"
#include "transport/http/sse.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace ec = protocol::error_code;

namespace {

constexpr auto client_input_timeout = std::chrono::seconds(60);

// What an upstream says outside any call's observer (its sessions' GET streams, a call without
// one), heard by the gateway as that upstream's.
class session_traffic final : public upstream_observer {
public:
    session_traffic(gateway::impl& g, const upstream_client* from) : g_(g), from_(from) {}
    void message(const std::string& bridge, upstream_message m) override {
        g_.upstream_news.on_message(from_, bridge, std::move(m));
    }

private:
    gateway::impl& g_;
    const upstream_client* from_;
};
} // namespace

void gateway::impl::wire(const std::shared_ptr<upstream_client>& client) {
    client->start_health_checks();
    if (fleet)
        client->share_through(fleet);
    if (parts.tap)
        client->record_through(parts.tap);
    client->observe(std::make_unique<session_traffic>(*this, client.get()));
}

void gateway::impl::broadcast(const json::object& news) {
    sessions.broadcast(json::serialize(news));
    listens.deliver_to_all(news);
}

asio::awaitable<std::string> gateway::impl::run_call(protocol::message msg, request_context& rec) {
    // Stages 4-9 (stages 2-3 ran when the request was read).
    rec.method = msg.method;
    rec.id = msg.id;
    rec.params = msg.take_params();
    if (auto routed = stages.run(rec, stage::route); !routed.ready())
        co_await routed.take();
    rec.server_message = nullptr;
    rec.push_to_client = nullptr;
    if (!rec.verbatim.empty())
        co_return std::move(rec.verbatim);
    if (!rec.response)
        refuse(rec, gateway_error::internal_error, {"no answer"});
    co_return json::serialize(*rec.response);
}

namespace {

// The writer of a streamed call's answer, made only when the upstream speaks before
// answering: it turns the POST's answer into an event stream that carries those messages and
// then the answer. Lives in the call's frame, which waits for it to finish before it returns,
// so the references stay valid.
struct call_writer {
    call_writer(asio::any_io_executor e, beast::tcp_stream& s, const http_request& q,
                request_context& r)
        : ex(std::move(e)), stream(s), req(q), rec(r) {}
    asio::any_io_executor ex;
    beast::tcp_stream& stream;
    const http_request& req;
    request_context& rec;
    bool started = false;
    bool finished = false;
    std::shared_ptr<message_queue> out;
    std::shared_ptr<asio::steady_timer> done;

    void push(std::string text, bool answer = false) {
        start();
        out->push(std::move(text), answer);
    }
    void start();
};

// The header goes out with the first frame, and the last frame with the end of the stream:
// each write wakes the client once.
asio::awaitable<void> write_frames(call_writer& writer, std::shared_ptr<message_queue> out) {
    auto head = event_stream_head(writer.req.version(), "gate", std::nullopt);
    std::uint64_t event_id = 0;
    for (;;) {
        std::string frame;
        bool last = false;
        while (!out->frames.empty()) {
            last = out->answered && out->frames.size() == 1;
            frame += format_sse(out->frames.front(), std::to_string(++event_id));
            out->frames.pop_front();
        }
        // A client that left stops the writer; the call still finishes and is audited.
        if ((!frame.empty() || last) &&
            co_await write_event_chunk(writer.stream, frame, last, std::exchange(head, {})))
            break;
        if (last)
            break;
        co_await out->wait();
    }
    writer.finished = true;
    writer.done->cancel();
}

void call_writer::start() {
    if (started)
        return;
    started = true;
    out = std::make_shared<message_queue>(ex);
    done = std::make_shared<asio::steady_timer>(ex, asio::steady_timer::time_point::max());
    asio::co_spawn(ex, write_frames(*this, out), asio::detached);
}

// The sinks of a streamed call refer to its frame; the context outlives it.
struct forget_sinks {
    request_context& r;
    ~forget_sinks() {
        r.server_message = nullptr;
        r.push_to_client = nullptr;
    }
};

} // namespace

asio::awaitable<std::optional<http_reply>> gateway::impl::streamed_call(beast::tcp_stream& stream,
                                                                        const http_request& req,
                                                                        protocol::message msg,
                                                                        request_context& record) {
    if (record.modern)
        co_return co_await parked_call(stream, req, std::move(msg), std::move(record));
    // The call runs inline; the common call (the answer alone) costs no second coroutine, and
    // no queue or timer either: they are made with the writer.
    call_writer writer{co_await asio::this_coro::executor, stream, req, record};
    forget_sinks forget{record};
    record.server_message = [this, &writer](std::size_t upstream, upstream_message m) {
        writer.push(upstream_news.to_client(
            writer.rec.session, writer.rec.view->clients[upstream]->config().id, std::move(m)));
    };
    record.push_to_client = [&writer](std::string text) { writer.push(std::move(text)); };
    auto answer = co_await run_call(std::move(msg), record);
    if (!writer.started)
        co_return http_reply::json(http::status::ok, std::move(answer));
    writer.push(std::move(answer), true);
    if (!writer.finished) {
        boost::system::error_code ec; // cancellation is the wake-up
        co_await writer.done->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    co_return std::nullopt;
}

asio::awaitable<std::optional<http_reply>> gateway::impl::parked_call(beast::tcp_stream& stream,
                                                                      const http_request& req,
                                                                      protocol::message msg,
                                                                      request_context record) {
    auto ex = co_await asio::this_coro::executor;
    auto out = std::make_shared<message_queue>(ex);
    auto rec = std::make_shared<request_context>(std::move(record));
    rec->keep_params_source(); // the call may outlive this POST and its body
    auto park = std::make_shared<input_parking>();
    park->request = parked_request_key(msg);
    park->out = out;
    rec->server_message = [this, out, park, rec = rec.get()](std::size_t upstream,
                                                             upstream_message m) {
        if (m.body().contains("id")) {
            // A 2026-07-28 client takes no server requests: it is asked through an
            // input_required result, and the call waits for its retry.
            park->client = rec->view->clients[upstream];
            park->requests.push_back(std::move(m));
            out->wake.cancel();
            return;
        }
        out->push(upstream_news.to_client(rec->session, rec->view->clients[upstream]->config().id,
                                          std::move(m)));
    };
    auto id = msg.id; // the call takes the message; a parked answer needs the id
    // The call runs on its own: it may outlive this POST when it is parked, and its answer is
    // audited once either way.
    asio::co_spawn(
        ex,
        [this, out, rec, msg = std::move(msg)]() mutable -> asio::awaitable<void> {
            auto answer = co_await run_call(std::move(msg), *rec);
            out->push(std::move(answer), true);
        },
        asio::detached);
    co_return co_await answer_modern(inputs, stream, req, park, std::move(id));
}

asio::awaitable<std::optional<protocol::sourced_object>>
gateway::impl::ask_client_input(request_context& rec, protocol::sourced_object asked) {
    if (!rec.push_to_client)
        co_return std::nullopt;
    auto minted = "gate-" + std::to_string(++minted_ids);
    auto slot = inputs.expect(minted, rec.session, io.get_executor());
    auto& request = asked.value;
    request["jsonrpc"] = "2.0";
    request["id"] = minted;
    rec.push_to_client(protocol::serialize_preserving(request, asked.source));
    // Bounded: a client that never answers does not pin the call.
    slot->wake.expires_after(client_input_timeout);
    boost::system::error_code ec;
    co_await slot->wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    inputs.forget(minted);
    if (!slot->answered)
        co_return std::nullopt;
    co_return std::move(slot->result);
}


void gateway::impl::session_ended(std::string session) {
    // Every upstream session of the client ends now, those the keeper has not heard of yet
    // (a handshake that failed before its first call went out) included.
    for (const auto& c : live->clients)
        c->end_bridge(session);
    holds.release_all(session);
    server_requests.forget_session(session);
    keeper.tell(bridge_session_ended{std::move(session)});
}

} // namespace gate::transport
