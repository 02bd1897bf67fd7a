// What a request to an upstream means: sent on its session (again once after a 404 on a
// session), a 2026-07-28 upstream's input rounds answered by the client, lists fetched page
// by page, messages delivered on a session, the level a client set.
#include "gateway/upstream/upstream_requests.hpp"

#include "gateway/upstream/upstream_client.hpp"
#include "gateway/upstream/upstream_client_parts.hpp"
#include "gateway/upstream/upstream_exchange.hpp"
#include "gateway/upstream/upstream_recording.hpp"
#include "process/version.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/json_splice.hpp"
#include "protocol/modern_request.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>
#include <utility>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;
using namespace upstream::parts;

namespace {
// Input rounds one call may take with a 2026-07-28 upstream before gate gives up.
constexpr int max_input_rounds = 16;

// Counts a request on a session while it runs (its handshake included), so the bridge
// keeper's retirement, decided on a picture up to one batch old, skips a session in use.
class session_use {
public:
    explicit session_use(upstream_session& s) : s_(s) { s_.life.enter(); }
    ~session_use() { s_.life.leave(); }
    session_use(const session_use&) = delete;
    session_use& operator=(const session_use&) = delete;

private:
    upstream_session& s_;
};
} // namespace

// A request of a call on the wire: found by gate's id for it while it runs (a 2026-07-28
// upstream's call is cancelled by closing its exchange), and at an earlier upstream told of
// the call's cancellation by a notifications/cancelled on the session it went on.
class upstream_requests::running_call {
public:
    running_call(upstream_requests& requests, call_cancel* cancel, std::int64_t id,
                 const std::string& bridge)
        : requests_(requests), cancel_(cancel), id_(id) {
        if (!cancel_)
            return;
        if (requests_.state_.modern) {
            requests_.running_[id_] = cancel_;
            return;
        }
        cancel_->telling([&requests, cancel = cancel_, id, bridge] {
            json::value reason(cancel->reason());
            requests.tell(
                bridge, protocol::make_cancelled(id, cancel->reason().empty() ? nullptr : &reason));
        });
    }
    ~running_call() {
        if (!cancel_)
            return;
        cancel_->off_wire(); // a later cancellation names no request of this call here
        if (requests_.state_.modern)
            requests_.running_.erase(id_);
    }
    running_call(const running_call&) = delete;
    running_call& operator=(const running_call&) = delete;

private:
    upstream_requests& requests_;
    call_cancel* cancel_;
    std::int64_t id_;
};

void upstream_requests::tell(const std::string& bridge, json::object message) {
    // Sent on its own: the cancelled call's exchange is closed at once, not after it.
    asio::co_spawn(
        state_.ex,
        [this, keep = state_.hold(), bridge,
         message = std::move(message)]() mutable -> asio::awaitable<void> {
            if (keep)
                co_await deliver(bridge, std::move(message), {});
        },
        asio::detached);
}

bool upstream_requests::cancel(const json::value& id, std::string reason) {
    auto it = id.is_int64() ? running_.find(id.get_int64()) : running_.end();
    if (it == running_.end())
        return false; // over already, or not a request of gate's
    it->second->request(std::move(reason));
    return true;
}

upstream_requests::upstream_requests(upstream_state& state, upstream_sessions& sessions,
                                     upstream_exchange& exchange, upstream_guards& guards,
                                     upstream_recording& recording)
    : state_(state), sessions_(sessions), exchange_(exchange), guards_(guards),
      recording_(recording) {}

namespace {
// A JSON-RPC response to request `id`: what an upstream must answer. Anything else (an HTTP
// error page in JSON, another id) is a failed call, not an answer to pass on.
std::optional<upstream_failure> not_an_answer(const http_answer& answer, std::int64_t id) {
    if (!answer.message)
        return fail(upstream_failure::kind::http_status,
                    "upstream answered HTTP " + std::to_string(answer.status) +
                        " without a JSON-RPC response",
                    answer.status);
    if (is_response_to(*answer.message, id))
        return std::nullopt;
    const auto& raw = answer.message->raw();
    auto text = raw.size() > 200 ? raw.substr(0, 200) + "..." : raw;
    return fail(upstream_failure::kind::http_status,
                "upstream answered HTTP " + std::to_string(answer.status) +
                    " with a body that is not a JSON-RPC response to the request: " + text,
                answer.status);
}

// A 2026-07-28 request's envelope: the client's capabilities (gate's, for its own), and the
// level the client set (logging/setLevel), which travels with each request; a 2026-07-28
// client's own level in its `_meta` stays as it sent it.
void add_envelope(json::object& params, const call_context& ctx, const upstream_session& s) {
    protocol::add_envelope(params,
                           ctx.client_capabilities ? *ctx.client_capabilities : *s.capabilities,
                           json::object{{"name", "gate"}, {"version", process::gate_version}});
    auto& meta = params["_meta"].as_object();
    if (s.log_level && !meta.contains(protocol::meta_log_level))
        meta[protocol::meta_log_level] = *s.log_level;
}

// A caller's trace context in `_meta` (SEP-414) goes upstream as gate's span continues it,
// the same as the traceparent header: the upstream's parent is gate's call, not the caller.
// tracestate and baggage pass as the caller wrote them.
void continue_meta_trace(json::object& params, const call_context& ctx) {
    if (ctx.traceparent.empty())
        return;
    auto* meta = params.if_contains("_meta");
    auto* m = meta ? meta->if_object() : nullptr;
    auto* t = m ? m->if_contains("traceparent") : nullptr;
    if (t && t->is_string())
        *t = ctx.traceparent;
}

// Whether `answer` asks the call's client for input: 2026-07-28 asks by answering
// input_required, and a client of an earlier revision is asked each embedded request.
bool asks_input(const upstream_message& answer, bool modern, const call_context& ctx) {
    if (!modern || !ctx.observer || !ctx.observer->answers_input())
        return false;
    auto type = answer.value_at({"result", "resultType"});
    return type && type->is_string() && type->get_string() == "input_required";
}

// The least time between two relearnings of one upstream's tools after a -32020.
constexpr auto relearn_interval = std::chrono::seconds(10);

// Whether `answer` is the revision's -32020: a header (an Mcp-Param-* one, for a call whose
// headers gate wrote from what it knew) did not mirror the body.
bool header_mismatch(const upstream_message& answer) {
    auto code = answer.value_at({"error", "code"});
    return code && code->is_int64() && code->get_int64() == protocol::modern_code::header_mismatch;
}

// `"key":<the answer as the client wrote it>` appended to the members in `out`.
void append_member(std::string& out, std::string_view key, const protocol::sourced_object& answer) {
    if (!out.empty())
        out += ',';
    out += json::serialize(json::string_view(key.data(), key.size()));
    out += ':';
    if (answer.source.empty())
        protocol::write_json(answer.value, out);
    else
        out += answer.source;
}

// What a continued call's params are written from: the client's text, with its answers and
// the upstream's state (empty: none) as they were written. Only a guide: whatever does not
// read as the params is written from them.
std::string continued_source(std::string_view source, std::string_view responses,
                             std::string_view state) {
    std::string out(source.empty() ? std::string_view("{}") : source);
    if (auto with = protocol::set_member(out, {}, "inputResponses", responses))
        out = std::move(*with);
    if (!state.empty())
        if (auto with = protocol::set_member(out, {}, "requestState", state))
            out = std::move(*with);
    return out;
}

// A 2026-07-28 upstream's input_required `result` (read from `raw`), answered by asking the
// client each embedded request: the call's next round gets the answers and the upstream's
// state in `params`, and `continued` becomes the text they are written from (the client's
// answers and the upstream's state as they were written). The failure when the client gave
// no answer.
asio::awaitable<std::optional<upstream_failure>>
answer_input(const json::object& result, std::string_view raw, const call_context& ctx,
             json::object& params, std::string_view source, std::string& continued) {
    json::object responses;
    std::string responses_text;
    if (auto* reqs = result.if_contains("inputRequests"); reqs && reqs->is_object())
        for (auto& [key, embedded] : reqs->as_object()) {
            if (!embedded.is_object())
                continue;
            auto asked = protocol::find_member(raw, {"result", "inputRequests", key});
            auto got = co_await ctx.observer->ask_client(protocol::sourced_object{
                embedded.as_object(),
                asked ? std::string(raw.substr(asked->begin, asked->end - asked->begin)) : ""});
            if (!got) {
                auto f = fail(upstream_failure::kind::protocol,
                              "the client did not answer the upstream's " + std::string(key) +
                                  " input request");
                f.upstream_at_fault = false;
                co_return f;
            }
            append_member(responses_text, key, *got);
            responses[key] = std::move(got->value);
        }
    params["inputResponses"] = std::move(responses);
    if (auto* state = result.if_contains("requestState"))
        params["requestState"] = *state;
    else
        params.erase("requestState");
    auto state_text = protocol::find_member(raw, {"result", "requestState"});
    auto next = continued_source(
        source, "{" + responses_text + "}",
        state_text ? raw.substr(state_text->begin, state_text->end - state_text->begin)
                   : std::string_view());
    continued = std::move(next); // `source` may have been `continued`
    co_return std::nullopt;
}
} // namespace

outgoing_message upstream_requests::outgoing(std::int64_t id, std::string_view method,
                                             json::object& params, bool with_params,
                                             std::string_view source, const call_context& ctx,
                                             const upstream_session& s) {
    if (state_.modern)
        add_envelope(params, ctx, s);
    else // a 2026-07-28 client's envelope is no part of an earlier revision's request
        protocol::remove_envelope(params);
    continue_meta_trace(params, ctx);
    outgoing_message out{
        protocol::request_text(id, method, with_params ? &params : nullptr, source),
        method,
        protocol::named_value(method, &params),
        true,
        id,
        {}};
    if (state_.modern && method == "tools/call")
        out.fields = state_.facts->now()->headers.fields_for(params, &ctx.client_param_headers);
    return out;
}

bool upstream_requests::elsewhere(const upstream_failure& f, const upstream_endpoint& ep,
                                  upstream_session& s, std::uint64_t generation,
                                  std::optional<std::size_t>& refused_by) {
    // Its replica refused the connection (it died): nothing of the request left gate, so it
    // goes once more, on its session opened on another replica. What may have reached a
    // replica never goes twice.
    if (!f.unsent || exchange_.endpoints().size() < 2 || refused_by)
        return false;
    refused_by = ep.index;
    forget(s, generation);
    return true;
}

void upstream_requests::forget(upstream_session& s, std::uint64_t generation) {
    // Only the request that used the current session resets it; others that failed on the
    // same old session join the handshake already under way.
    if (s.life.forgotten(generation))
        sessions_.reset_session(s);
}

asio::awaitable<upstream_reply>
upstream_requests::send(std::string_view method, json::object params, const call_context& ctx) {
    auto deadline = clock::now() + state_.budget_for(ctx);
    // Empty params are left out, except where 2026-07-28 adds its envelope.
    bool with_params = !params.empty() || state_.modern;
    auto s = sessions_.session_for(ctx);
    if (!s)
        co_return fail(upstream_failure::kind::protocol,
                       "upstream " + state_.cfg.id +
                           " takes each caller's own credential and this "
                           "request has no session of that caller to go on");
    session_use in_use(*s);
    // A call at a 2026-07-28 upstream can be cancelled by a session's client too (by gate's
    // id for it, cancel()): it has a cancellation of its own when its client gave none.
    std::shared_ptr<call_cancel> own_cancel;
    auto* cancel = ctx.cancel.get();
    if (!cancel && state_.modern)
        cancel = (own_cancel = std::make_shared<call_cancel>()).get();
    int input_rounds = 0;
    // What the params are written from: the client's text, then with the input it gave.
    std::string_view source = ctx.params_source;
    std::string continued;
    bool relearnt = false;
    std::optional<std::size_t> refused_by; // the replica that refused it: sent once elsewhere
    for (bool retried = false;;) {
        if (!sessions_.ready_now(*s))
            if (auto failure = co_await sessions_.ensure_session(s, ctx, refused_by))
                co_return *failure;
        auto id = state_.next_id++;
        if (ctx.observer)
            ctx.observer->sent(id);
        auto generation = s->life.generation();
        auto session = s->state; // the exchange may outlive a reset of the shared one
        auto out = outgoing(id, method, params, with_params, source, ctx, *s);
        if (cancel && cancel->requested())
            co_return cancelled(*cancel);
        running_call running(*this, cancel, id, ctx.bridge);
        auto& ep = *s->ep; // a reset of the session during the exchange leaves it
        auto r = co_await exchange_.exchange(ep, out, session, ctx, deadline, s.get(), cancel);
        if (auto* f = std::get_if<upstream_failure>(&r)) {
            if (!elsewhere(*f, ep, *s, generation, refused_by))
                co_return *f;
            continue;
        }
        auto& answer = std::get<http_answer>(r);
        if (answer.status == 404 && !session.id.empty()) {
            // The upstream retired our session (restart, expiry): re-initialize and retry once.
            // Without a session (2026-07-28) a 404 is the answer itself (an unknown method),
            // and sending again would invoke the upstream twice.
            if (std::exchange(retried, true))
                co_return fail(upstream_failure::kind::http_status,
                               "upstream lost the session twice (HTTP 404 on a new session)", 404);
            forget(*s, generation);
            continue;
        }
        if (auto f = not_an_answer(answer, id))
            co_return std::move(*f);
        if (!relearnt && state_.modern && method == "tools/call" &&
            header_mismatch(*answer.message)) {
            relearnt = true;
            if (co_await headers_relearnt(params, out.fields, ctx))
                continue;
        }
        if (asks_input(*answer.message, state_.modern, ctx)) {
            // The call is retried with the client's answers and the upstream's state.
            auto* result = answer.message->body()["result"].if_object();
            if (++input_rounds > max_input_rounds)
                co_return fail(upstream_failure::kind::protocol,
                               "upstream asked for input more than " +
                                   std::to_string(max_input_rounds) + " times in one call");
            if (auto f = co_await answer_input(*result, answer.message->raw(), ctx, params, source,
                                               continued))
                co_return *f;
            source = continued; // not a lost session: the same call, continued
            continue;
        }
        co_return std::move(*answer.message);
    }
}

std::string upstream_requests::list_over_bound(std::string_view method, int pages) const {
    auto message = "its " + std::string(method) + " is over " +
                   std::to_string(max_list_bytes >> 20) +
                   " MiB, its pages' texts summed, gate's bound of one list (past it after " +
                   std::to_string(pages) + " pages): the list was dropped";
    spdlog::warn("upstream {}: {}", state_.cfg.id, message);
    return message;
}

asio::awaitable<std::variant<json::array, upstream_failure>>
upstream_requests::fetch_list(std::string_view method, std::string_view key,
                              const call_context& ctx, upstream_guards::ticket ticket,
                              std::vector<std::string>* sources) {
    json::array all;
    std::optional<std::string> cursor;
    auto paged = ctx; // each page reads no more than what remains of the list's bound
    std::size_t held = 0;
    for (int pages = 0; pages < 1000; ++pages) {
        json::object params;
        if (cursor)
            params["cursor"] = *cursor;
        paged.answer_limit = max_list_bytes - held;
        auto heard = recording_.before(params);
        auto r = co_await send(method, std::move(params), paged);
        if (heard)
            recording_.heard(ctx, std::move(*heard), method, r);
        co_await ticket.settle(std::get_if<upstream_failure>(&r));
        if (auto* f = std::get_if<upstream_failure>(&r)) {
            if (f->over_bound)
                f->message = list_over_bound(method, pages);
            co_return *f;
        }
        held += std::get<upstream_message>(r).raw().size();
        auto& msg = std::get<upstream_message>(r).body();
        auto* result = msg.if_contains("result");
        auto* obj = result ? result->if_object() : nullptr;
        if (!obj) {
            // An upstream without this capability answers an error: it has nothing to list.
            co_return all;
        }
        if (auto* items = obj->if_contains(key); items && items->is_array()) {
            if (sources) { // as the page's text has them, where it says so unambiguously
                auto texts =
                    protocol::element_texts(std::get<upstream_message>(r).raw(), {"result", key});
                for (std::size_t i = 0; i < items->as_array().size(); ++i)
                    sources->emplace_back(texts && texts->size() == items->as_array().size()
                                              ? (*texts)[i]
                                              : std::string_view());
            }
            for (auto& item : items->as_array())
                all.push_back(std::move(item));
        }
        auto* next = obj->if_contains("nextCursor");
        if (!next || !next->is_string() || next->get_string().empty()) {
            if (method == "tools/list")
                co_await learn_tools(all, sources);
            co_return all;
        }
        if (held >= max_list_bytes) // the next page would have no room
            co_return fail(upstream_failure::kind::protocol, list_over_bound(method, pages + 1));
        cursor = std::string(next->get_string());
    }
    co_return fail(upstream_failure::kind::protocol, "upstream list has more than 1000 pages");
}

asio::awaitable<bool> upstream_requests::headers_relearnt(const json::object& params,
                                                          const protocol::header_fields& sent,
                                                          const call_context& ctx) {
    // The upstream wants Mcp-Param-* headers gate did not know of (a tool it never listed to
    // gate, or whose schema changed): learn its tools again, as the revision tells a client
    // to; the call is sent once more if that changes its headers.
    // Once in a while per upstream, whatever calls ask for it meanwhile: a tool the upstream
    // refuses over its headers forever (or a flood of such calls) does not relist each time.
    auto now = std::chrono::steady_clock::now();
    if (now - state_.tools_relearnt < relearn_interval)
        co_return false;
    state_.tools_relearnt = now;
    // Gate's own requests, on the session the call went on: nothing of the call's own (its
    // observer, its recording, its text) goes with them.
    call_context own = call_context::traced(ctx.traceparent);
    own.use = actors::guard_use::upkeep;
    own.bridge = ctx.bridge;
    own.caller = ctx.caller;
    own.client_capabilities = ctx.client_capabilities;
    own.profile = ctx.profile;
    // Through the guards like any of gate's own requests; fetch_list learns the annotations.
    auto admitted = co_await guards_.admit(actors::guard_use::upkeep);
    if (auto* ticket = std::get_if<upstream_guards::ticket>(&admitted))
        co_await fetch_list("tools/list", "tools", own, std::move(*ticket), nullptr);
    co_return state_.facts->now()->headers.fields_for(params, &ctx.client_param_headers) != sent;
}

asio::awaitable<void> upstream_requests::learn_tools(json::array& all,
                                                     std::vector<std::string>* sources) {
    // Judged on a scratch copy while the facts in force go on serving calls (the fleet's pins
    // are agreed on first, a round trip), then published with what this list says.
    std::optional<listed_tools> judged;
    std::vector<std::string> named; // before the withheld ones are taken out
    if (state_.definitions) {
        for (const auto& t : all)
            if (const auto* tool = t.if_object())
                if (const auto* name = tool->if_contains("name"); name && name->is_string())
                    named.emplace_back(name->get_string());
        judged.emplace();
        co_await judged->withhold_changed(all, sources, *state_.definitions, state_.cfg);
    }
    state_.facts->amend([&](tool_facts& f) {
        if (judged)
            f.tools.take_judgement(*judged, named);
        f.tools.learn(all);
        f.headers.learn(all, sources, state_.cfg.id);
    });
}

asio::awaitable<std::variant<json::object, upstream_failure>>
upstream_requests::initialize_result(const call_context& ctx) {
    auto admitted = co_await guards_.admit(actors::guard_use::upkeep);
    if (auto* refused = std::get_if<upstream_failure>(&admitted))
        co_return std::move(*refused);
    auto ticket = std::move(std::get<upstream_guards::ticket>(admitted));
    // A per-caller upstream is asked on that caller's session: its answer may depend on who asks.
    auto s = sessions_.session_for(ctx);
    if (!s) {
        auto f = fail(upstream_failure::kind::protocol,
                      "upstream " + state_.cfg.id + " takes each caller's own credential");
        f.upstream_at_fault = false;
        co_await ticket.settle(&f);
        co_return f;
    }
    auto failure = co_await sessions_.ensure_session(s, ctx);
    co_await ticket.settle(failure ? &*failure : nullptr);
    if (failure)
        co_return *failure;
    co_return s->init_result;
}

asio::awaitable<bool> upstream_requests::deliver(const std::string& bridge, json::object message,
                                                 std::string source) {
    auto s = bridge.empty() ? sessions_.root() : sessions_.find(bridge);
    if (!s || !s->life.ready())
        co_return false;
    call_context ctx;
    auto r = co_await exchange_.exchange(*s->ep, outgoing_message::of(message, source), s->state,
                                         ctx, clock::now() + state_.budget_for(ctx), s.get());
    auto* answer = std::get_if<http_answer>(&r);
    co_return answer && answer->status >= 200 && answer->status < 300;
}

asio::awaitable<bool> upstream_requests::deliver_to(const session_address& to, json::object message,
                                                    std::string source) {
    if (to.endpoint >= exchange_.endpoints().size())
        co_return false;
    session_origin carrier; // no caller: gate's own credential for the upstream
    call_context ctx;
    auto r = co_await exchange_.exchange(exchange_.endpoint(to.endpoint),
                                         outgoing_message::of(message, source),
                                         session_state{to.id, to.protocol_version}, ctx,
                                         clock::now() + state_.budget_for(ctx), &carrier);
    auto* answer = std::get_if<http_answer>(&r);
    co_return answer && answer->status >= 200 && answer->status < 300;
}

void upstream_requests::keep_log_level(const std::string& bridge, std::string level,
                                       const json::object& capabilities) {
    call_context ctx;
    ctx.bridge = bridge;
    ctx.client_capabilities = &capabilities;
    if (auto s = sessions_.session_for(ctx))
        s->log_level = std::move(level);
}

asio::awaitable<void> upstream_requests::set_log_level(const std::string& bridge, std::string level,
                                                       const json::object& capabilities) {
    call_context ctx;
    ctx.bridge = bridge;
    ctx.client_capabilities = &capabilities;
    auto s = sessions_.session_for(ctx);
    if (!s)
        co_return;
    s->log_level = level;
    // Sent at the handshake when the session is not open yet. 2026-07-28 has no setLevel:
    // the level travels in the `_meta` of each request on this session instead.
    if (!s->life.ready() || state_.modern)
        co_return;
    auto admitted = co_await guards_.admit(actors::guard_use::upkeep);
    if (!std::holds_alternative<upstream_guards::ticket>(admitted))
        co_return; // the level is sent with the next handshake of this session
    auto ticket = std::move(std::get<upstream_guards::ticket>(admitted));
    json::object msg{{"jsonrpc", "2.0"},
                     {"id", state_.next_id++},
                     {"method", "logging/setLevel"},
                     {"params", {{"level", std::move(level)}}}};
    auto r = co_await exchange_.exchange(*s->ep, outgoing_message::of(msg), s->state, ctx,
                                         clock::now() + state_.budget_for(ctx), s.get());
    co_await ticket.settle(std::get_if<upstream_failure>(&r));
}

} // namespace gate::gateway
