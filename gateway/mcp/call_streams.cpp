// The common call (the answer alone) costs no second coroutine, queue or timer: a call's
// event stream is made only when its upstream speaks before answering.
#include "gateway/mcp/call_streams.hpp"

#include "gateway/mcp/modern_answer.hpp"
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_splice.hpp"
#include "protocol/modern_request.hpp"
#include "transport/http/event_stream.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;

pipeline::step call_streams::start(protocol::message msg, request_context& rec, bool pausing) {
    // Stages 4-9 (stages 2-3 ran when the request was read).
    rec.method = msg.method;
    rec.message.id = msg.id;
    rec.message.params = msg.take_params();
    return pausing ? stages_.run_pausing(rec, stage::route) : stages_.run(rec, stage::route);
}

std::string call_streams::answer_text(request_context& rec) {
    rec.sinks.server_message = nullptr;
    rec.sinks.push_to_client = nullptr;
    if (!rec.answer.verbatim.empty())
        return std::move(rec.answer.verbatim);
    // A refusal with an HTTP status of its own (a step-up's 403): its body here, its status
    // and headers left on the record for the caller's reply.
    if (!rec.answer.response && rec.answer.refusal_reply)
        return rec.answer.refusal_reply->body;
    if (!rec.answer.response)
        refuse(rec, gateway_error::internal_error, {"no answer"});
    return json::serialize(*rec.answer.response);
}

asio::awaitable<std::string> call_streams::run(protocol::message msg, request_context& rec) {
    if (auto stages = start(std::move(msg), rec, false); !stages.ready())
        co_await stages.take();
    co_return answer_text(rec);
}

namespace {

// The writer of a streamed call's answer, made only when the upstream speaks before
// answering: it turns the POST's answer into an event stream that carries those messages and
// then the answer. Lives in the call's frame, which waits for it to finish before it returns,
// so the references stay valid.
struct call_writer {
    call_writer(asio::any_io_executor e, beast::tcp_stream& s, const transport::http_request& q,
                request_context& r)
        : ex(std::move(e)), stream(s), req(q), rec(r) {}
    asio::any_io_executor ex;
    beast::tcp_stream& stream;
    const transport::http_request& req;
    request_context& rec;
    bool started = false;
    bool finished = false;
    std::shared_ptr<transport::message_queue> out;
    std::shared_ptr<asio::steady_timer> done;

    void push(std::string text, bool answer = false) {
        start();
        out->push(std::move(text), answer);
    }
    void start();
};

// The header goes out with the first frame, and the last frame with the end of the stream:
// each write wakes the client once.
asio::awaitable<void> write_frames(call_writer& writer,
                                   std::shared_ptr<transport::message_queue> out) {
    auto head = transport::event_stream_head(writer.req.version(), "gate", std::nullopt);
    std::uint64_t event_id = 0;
    for (;;) {
        std::string frame;
        bool last = false;
        while (!out->frames.empty()) {
            last = out->answered && out->frames.size() == 1;
            frame += transport::format_sse(out->take(), std::to_string(++event_id));
        }
        // A client that left stops the writer; the call still finishes and is audited.
        if ((!frame.empty() || last) && co_await transport::write_event_chunk(
                                            writer.stream, frame, last, std::exchange(head, {})))
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
    out = std::make_shared<transport::message_queue>(ex);
    done = std::make_shared<asio::steady_timer>(ex, asio::steady_timer::time_point::max());
    asio::co_spawn(ex, write_frames(*this, out), asio::detached);
}

// The sinks of a streamed call refer to its frame; the context outlives it.
struct forget_sinks {
    request_context& r;
    ~forget_sinks() {
        r.sinks.server_message = nullptr;
        r.sinks.push_to_client = nullptr;
    }
};

} // namespace

asio::awaitable<std::optional<transport::http_reply>>
call_streams::streamed(beast::tcp_stream& stream, const transport::http_request& req,
                       protocol::message msg, request_context& record) {
    if (record.client.modern)
        co_return co_await parked(stream, req, std::move(msg), std::move(record));
    // The call runs inline; the common call (the answer alone) costs no second coroutine, and
    // no queue or timer either: they are made with the writer.
    call_writer writer{co_await asio::this_coro::executor, stream, req, record};
    forget_sinks forget{record};
    record.sinks.server_message = [this, &writer](std::size_t upstream, const std::string&,
                                                  upstream_message m) {
        writer.push(news_.to_client(writer.rec.client.session, writer.rec.view->config(upstream).id,
                                    std::move(m)));
    };
    record.sinks.push_to_client = [&writer](std::string text) { writer.push(std::move(text)); };
    // run's body, inline, with the chain paused at a waiting stage rather than finished in a
    // frame of its own: the common call makes neither frame.
    auto stages = start(std::move(msg), record, true);
    while (!stages.ready()) {
        std::optional<pipeline::verdict> decided;
        std::string failure;
        try {
            decided = co_await stages.take();
        } catch (const std::exception& e) {
            failure = e.what();
        } catch (...) {
            failure = "internal error";
        }
        stages = stages_.resume(record, decided, failure);
    }
    auto answer = answer_text(record);
    if (!writer.started && record.answer.refusal_reply)
        co_return std::move(*record.answer.refusal_reply);
    if (!writer.started)
        co_return transport::http_reply::json(http::status::ok, std::move(answer));
    writer.push(std::move(answer), true);
    if (!writer.finished) {
        boost::system::error_code ec; // cancellation is the wake-up
        co_await writer.done->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    co_return std::nullopt;
}

asio::awaitable<std::optional<transport::http_reply>>
call_streams::parked(beast::tcp_stream& stream, const transport::http_request& req,
                     protocol::message msg, request_context record) {
    auto ex = co_await asio::this_coro::executor;
    auto out = std::make_shared<transport::message_queue>(ex);
    auto rec = std::make_shared<request_context>(std::move(record));
    rec->message.keep_params_source(); // the call may outlive this POST and its body
    auto park = std::make_shared<input_parking>();
    park->request = parked_request_key(msg);
    park->arguments = parked_arguments(msg);
    park->principal = principal_key(rec->who.caller);
    park->out = out;
    park->cancel = rec->sinks.cancel = std::make_shared<call_cancel>();
    rec->sinks.server_message = [this, out, park, rec = rec.get()](std::size_t upstream,
                                                                   const std::string& bridge,
                                                                   upstream_message m) {
        if (m.body().contains("id")) {
            // A 2026-07-28 client takes no server requests: it is asked through an
            // input_required result, and the call waits for its retry; what it cannot be
            // asked (a ping, a capability it did not declare) gate answers for it.
            if (auto reply = protocol::answer_for_client(m.body(), rec->method,
                                                         rec->client.modern_capabilities)) {
                answer_upstream(out->wake.get_executor(), rec->view->client_at(upstream), bridge,
                                std::move(*reply), m.raw());
                return;
            }
            park->client = rec->view->client_at(upstream);
            park->bridge = bridge; // a per-caller upstream's call goes on its caller's session
            park->requests.push_back(std::move(m));
            out->wake.cancel();
            return;
        }
        if (!protocol::wants_message(m.body(), rec->client.modern_log_level))
            return; // a log message below the level the request asked for, or none asked
        out->push(
            news_.to_client(rec->client.session, rec->view->config(upstream).id, std::move(m)));
    };
    auto id = msg.id; // the call takes the message; a parked answer needs the id
    // The call runs on its own: it may outlive this POST when it is parked, and its answer is
    // audited once either way.
    asio::co_spawn(
        ex,
        [this, out, rec, park, msg = std::move(msg)]() mutable -> asio::awaitable<void> {
            auto answer = co_await run(std::move(msg), *rec);
            park->answer_status = rec->answer.status;
            if (rec->answer.refusal_reply) {
                park->answer_status = static_cast<unsigned>(rec->answer.refusal_reply->status);
                park->answer_headers = std::move(rec->answer.refusal_reply->headers);
            }
            out->push(std::move(answer), true);
        },
        asio::detached);
    auto fleet = services_.parked_calls();
    co_return co_await answer_modern(inputs_, fleet, stream, req, park, std::move(id));
}

namespace {

// A retry's inputResponses (none: an empty object, so every question is asked again) and the
// text it wrote them in.
const json::object* retry_responses(const json::object& params) {
    static const json::object no_answers;
    if (auto* r = params.if_contains("inputResponses"); r && r->is_object())
        return &r->get_object();
    return &no_answers;
}

std::string retry_responses_text(const transport::http_request& req) {
    std::string_view body = req.body();
    auto written = protocol::find_member(body, {"params", "inputResponses"});
    return written ? std::string(body.substr(written->begin, written->end - written->begin)) : "";
}

} // namespace

transport::http_reply call_streams::refused_retry(request_context& rec,
                                                  parked_inputs::claim::kind what) {
    // The state of another call, or another caller's: a retry resumes only the call it came
    // from, and only for the caller that made it.
    auto why = what == parked_inputs::claim::kind::other_principal
                   ? "requestState was issued to another caller"
                   : "requestState belongs to another request (method, name or arguments differ)";
    refuse(rec,
           error_answer{gateway_error::invalid_params_modern,
                        protocol::gateway_error_text(gateway_error::invalid_params_modern, {why}),
                        nullptr,
                        {},
                        protocol::client_era::modern});
    stages_.conclude(rec); // a retry is answered here, by its parked call, not by the stages
    return std::move(*rec.answer.refusal_reply);
}

asio::awaitable<std::optional<std::optional<transport::http_reply>>>
call_streams::resume_parked(beast::tcp_stream& stream, const transport::http_request& req,
                            const protocol::message& msg, request_context& rec) {
    auto* params = msg.params();
    auto* state = params ? params->if_contains("requestState") : nullptr;
    if (!state || !state->is_string())
        co_return std::nullopt;
    using kind = parked_inputs::claim::kind;
    std::string token(state->get_string());
    auto claim = inputs_.resume(token, msg, principal_key(rec.who.caller));
    auto fleet = services_.parked_calls();
    if (claim.what == kind::unknown) {
        if (fleet.store) // parked by another instance of the fleet?
            co_return co_await resume_elsewhere(stream, req, msg, rec, token, fleet);
        co_return std::nullopt; // not ours: the upstream's own state, forwarded with the retry
    }
    if (claim.what != kind::resumed)
        co_return refused_retry(rec, claim.what);
    if (fleet.store)
        fleet.store->erase("parked", {token}); // resumed here: no other instance claims it
    auto park = std::move(claim.park);
    // A retry without answers is asked again (none came: every question stays asked).
    rec.audit.upstream_calls += static_cast<std::int64_t>(park->keys.size());
    co_await parked_inputs::answer_upstream(*park, retry_responses(*params),
                                            retry_responses_text(req));
    rec.upstream = park->client->config().id;
    auto reply = co_await answer_modern(inputs_, fleet, stream, req, park, msg.id);
    stages_.conclude(rec); // the parked call answered it, not the stages
    co_return reply;
}

asio::awaitable<std::optional<std::optional<transport::http_reply>>>
call_streams::resume_elsewhere(beast::tcp_stream& stream, const transport::http_request& req,
                               const protocol::message& msg, request_context& rec,
                               const std::string& token, const parked_fleet& fleet) {
    using kind = fleet_resume::kind;
    auto got =
        co_await resume_from_fleet(fleet, token, msg, principal_key(rec.who.caller), *rec.view,
                                   retry_responses(*msg.params()), retry_responses_text(req));
    switch (got.what) {
    case kind::unknown:
        co_return std::nullopt; // the upstream's own state (or no store to ask), forwarded
    case kind::other_principal:
        co_return refused_retry(rec, parked_inputs::claim::kind::other_principal);
    case kind::other_request:
        co_return refused_retry(rec, parked_inputs::claim::kind::other_request);
    default:
        break;
    }
    rec.upstream = got.upstream;
    rec.audit.upstream_calls += static_cast<std::int64_t>(got.delivered);
    if (got.what == kind::timed_out) {
        rec.message.id = msg.id;
        refuse(rec, error_answer{gateway_error::upstream_failed,
                                 protocol::gateway_error_text(
                                     gateway_error::upstream_failed,
                                     {got.upstream, "the parked call did not answer in time"}),
                                 msg.id,
                                 {},
                                 protocol::client_era::modern});
        stages_.conclude(rec);
        co_return answer_of(rec);
    }
    auto reply = co_await answer_modern(inputs_, fleet, stream, req, got.park, msg.id);
    stages_.conclude(rec); // the parked call answered it, not the stages
    co_return reply;
}

} // namespace gate::gateway
