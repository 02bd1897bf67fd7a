// How an upstream session opens: initialize and notifications/initialized (or, at a
// 2026-07-28 upstream, server/discover), over the replicas in turn, then its GET stream, read
// until the session ends.
#include "actors/guards/endpoint_rotation.hpp"
#include "gateway/upstream/upstream_client_parts.hpp"
#include "gateway/upstream/upstream_credentials.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_sessions.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "process/version.hpp"
#include "protocol/modern_request.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;
using namespace boost::asio::experimental::awaitable_operators;
using namespace upstream::parts;

namespace {
// How long a handshake waits for the new session's GET stream to open: for its request to be
// written, then for its header. A server may hold the header back until it has an event to
// send (the v2 SDK's Node adapter does): once the upstream has the request, the first call
// does not wait for it long.
constexpr auto stream_open_wait = std::chrono::seconds(2);
constexpr auto stream_header_grace = std::chrono::milliseconds(100);

// Signals the handshake through a timer it waits on: due at once, so a wait that has not begun
// yet (the stream answered before the handshake came back to wait for it) ends at once too.
void done(asio::steady_timer& signal) {
    signal.expires_at(asio::steady_timer::time_point::min());
}
} // namespace

asio::awaitable<std::optional<upstream_failure>>
upstream_sessions::handshake(session_ptr s, const call_context& caller,
                             std::optional<std::size_t> avoid) {
    // New sessions go round-robin over the replicas; a connect failure moves to the next one.
    // All attempts share the caller's budget (a /health probe's 5 s). The caller's observer
    // is not the handshake's: anything sent during it is session-wide.
    auto ctx = call_context::traced(caller.traceparent);
    ctx.timeout = caller.timeout;
    auto deadline = clock::now() + state_.budget_for(ctx);
    std::optional<upstream_failure> last;
    auto order = actors::rotation_order(guards_.board()->view()->in_rotation, turn_);
    if (avoid)
        std::stable_partition(order.begin(), order.end(), [&](auto i) { return i != *avoid; });
    for (auto index : order) {
        auto& ep = exchange_.endpoint(index);
        attempt tried;
        if (!state_.era_known || state_.modern)
            tried = co_await open_modern(s, ep, ctx, deadline);
        else
            tried.next = attempt::then::initialize;
        if (tried.next == attempt::then::initialize)
            tried = co_await initialize(s, ep, ctx, deadline);
        if (tried.next == attempt::then::next_replica) {
            last = std::move(tried.failure);
            continue;
        }
        co_return std::move(tried.failure);
    }
    co_return last;
}

asio::awaitable<upstream_sessions::attempt>
upstream_sessions::open_modern(const session_ptr& s, upstream_endpoint& ep, const call_context& ctx,
                               clock::time_point deadline) {
    json::object discovered;
    // A per-caller session discovers with its own credential: what the upstream offers may
    // depend on who asks.
    if (s == root_ || !state_.era_known || (state_.per_caller && s->caller)) {
        auto failure = co_await discover(ep, ctx, deadline, discovered, s.get());
        if (failure && failure->what == upstream_failure::kind::connect_error)
            co_return attempt{attempt::then::next_replica, std::move(failure)};
        if (failure)
            co_return attempt{attempt::then::done, std::move(failure)};
    }
    if (!state_.modern)
        co_return attempt{attempt::then::initialize, std::nullopt}; // `auto`: sessionful
    if (!discovered.empty()) {
        learn_identity(state_, discovered);
        s->init_result = std::move(discovered);
    }
    s->state = session_state{{}, std::string(protocol::modern_protocol_version)};
    s->ep = &ep;
    auto generation = s->life.publish();
    if (s == root_)
        hooks_.root_published(generation); // list changes and held URIs, on gate's own listen
    co_return attempt{};
}

asio::awaitable<upstream_sessions::attempt>
upstream_sessions::initialize(const session_ptr& s, upstream_endpoint& ep, const call_context& ctx,
                              clock::time_point deadline) {
    json::object init{{"jsonrpc", "2.0"},
                      {"id", state_.next_id++},
                      {"method", "initialize"},
                      {"params",
                       {{"protocolVersion", client_protocol_version},
                        {"capabilities", *s->capabilities},
                        {"clientInfo", {{"name", "gate"}, {"version", process::gate_version}}}}}};
    auto r = co_await exchange_.exchange(ep, outgoing_message::of(init), session_state{}, ctx,
                                         deadline, s.get());
    if (auto* f = std::get_if<upstream_failure>(&r))
        co_return attempt{f->what == upstream_failure::kind::connect_error
                              ? attempt::then::next_replica
                              : attempt::then::done,
                          std::move(*f)};
    auto& answer = std::get<http_answer>(r);
    if (answer.status != 200 || !answer.message)
        co_return attempt{attempt::then::done,
                          fail(upstream_failure::kind::http_status,
                               "initialize answered HTTP " + std::to_string(answer.status),
                               answer.status)};
    auto* result = answer.message->body().if_contains("result");
    if (!result || !result->is_object()) {
        auto f =
            fail(upstream_failure::kind::protocol, "initialize failed: " + answer.message->raw());
        f.answer = std::move(*answer.message);
        co_return attempt{attempt::then::done, std::move(f)};
    }
    // The new session is built aside and published whole once `initialized` is through, so
    // requests never see a half-made one.
    session_state next;
    next.id = answer.session_id;
    if (auto* v = result->as_object().if_contains("protocolVersion"); v && v->is_string())
        next.protocol_version = std::string(v->get_string());
    json::object initialized{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
    auto n = co_await exchange_.exchange(ep, outgoing_message::of(initialized), next, ctx, deadline,
                                         s.get());
    if (auto* f = std::get_if<upstream_failure>(&n))
        co_return attempt{attempt::then::done, std::move(*f)};
    if (s->life.ended() || state_.closed) {
        // Ended while the handshake ran: nobody will use it, so the upstream is told now.
        if (!next.id.empty())
            asio::co_spawn(state_.ex, exchange_.send_delete(ep, std::move(next), s->caller),
                           asio::detached);
        co_return attempt{attempt::then::done,
                          fail(upstream_failure::kind::connect_error, "the session was ended")};
    }
    co_await publish(s, ep, std::move(next), std::move(result->as_object()), ctx, deadline);
    co_return attempt{};
}

asio::awaitable<void> upstream_sessions::publish(const session_ptr& s, upstream_endpoint& ep,
                                                 session_state next, json::object result,
                                                 const call_context& ctx,
                                                 clock::time_point deadline) {
    learn_identity(state_, result);
    s->init_result = std::move(result);
    s->state = std::move(next);
    s->ep = &ep;
    auto generation = s->life.publish();
    if (s == root_)
        hooks_.root_published(generation);
    if (s->log_level) {
        json::object level{{"jsonrpc", "2.0"},
                           {"id", state_.next_id++},
                           {"method", "logging/setLevel"},
                           {"params", {{"level", *s->log_level}}}};
        co_await exchange_.exchange(ep, outgoing_message::of(level), s->state, ctx, deadline,
                                    s.get());
    }
    // Only a sessionful upstream has a GET stream for the session's own traffic. It is open
    // before the first call goes out: a server that asks the client something outside a call
    // (roots/list at start) would otherwise speak into the void.
    if (!s->state.id.empty()) {
        auto opened = std::make_shared<asio::steady_timer>(state_.ex, clock::time_point::max());
        auto sent = std::make_shared<asio::steady_timer>(state_.ex, clock::time_point::max());
        asio::co_spawn(state_.ex, listen(s, generation, opened, sent), asio::detached);
        asio::steady_timer bound(state_.ex, std::min(deadline, clock::now() + stream_open_wait));
        boost::system::error_code opened_ec, sent_ec, bound_ec;
        auto first =
            co_await (opened->async_wait(asio::redirect_error(asio::use_awaitable, opened_ec)) ||
                      sent->async_wait(asio::redirect_error(asio::use_awaitable, sent_ec)) ||
                      bound.async_wait(asio::redirect_error(asio::use_awaitable, bound_ec)));
        if (first.index() == 1) { // the upstream has the request: its header, a while more
            bound.expires_at(std::min(deadline, clock::now() + stream_header_grace));
            co_await (opened->async_wait(asio::redirect_error(asio::use_awaitable, opened_ec)) ||
                      bound.async_wait(asio::redirect_error(asio::use_awaitable, bound_ec)));
        }
    }
}

asio::awaitable<std::optional<upstream_failure>>
upstream_sessions::discover(upstream_endpoint& ep, const call_context& ctx,
                            clock::time_point deadline, json::object& init_result,
                            const upstream_session* origin) {
    json::object params;
    protocol::add_envelope(params, *root_->capabilities,
                           json::object{{"name", "gate"}, {"version", process::gate_version}});
    json::object probe{{"jsonrpc", "2.0"}, {"method", "server/discover"}, {"params", params}};
    session_state modern_state{{}, std::string(protocol::modern_protocol_version)};
    std::variant<http_answer, upstream_failure> r;
    // An upstream that refuses the version while listing 2026-07-28 among those it supports
    // (-32022) is asked once more, as the revision has a client retry with a supported one.
    for (int attempt = 0; attempt < 2; ++attempt) {
        probe["id"] = state_.next_id++;
        r = co_await exchange_.exchange(ep, outgoing_message::of(probe), modern_state, ctx,
                                        deadline, origin);
        auto* refused = std::get_if<http_answer>(&r);
        if (!refused || !refused->message ||
            !protocol::offers_modern_version(refused->message->body()))
            break;
    }
    if (auto* f = std::get_if<upstream_failure>(&r))
        co_return *f;
    auto& answer = std::get<http_answer>(r);
    auto* res = answer.message ? answer.message->body().if_contains("result") : nullptr;
    auto* result = res ? res->if_object() : nullptr;
    bool speaks_modern = false;
    if (result)
        if (auto* v = result->if_contains("supportedVersions"); v && v->is_array())
            for (auto& version : v->as_array())
                speaks_modern =
                    speaks_modern || (version.is_string() &&
                                      version.get_string() == protocol::modern_protocol_version);
    if (!state_.era_known) {
        // auto: anything but a discover result offering 2026-07-28 means the sessionful era.
        state_.era_known = true;
        state_.modern = speaks_modern;
        if (!state_.modern)
            co_return std::nullopt;
    }
    if (!speaks_modern) {
        auto f = fail(upstream_failure::kind::protocol,
                      "server/discover did not offer 2026-07-28 (HTTP " +
                          std::to_string(answer.status) + ")",
                      answer.status);
        if (answer.message)
            f.answer = std::move(*answer.message);
        co_return f;
    }
    // The discover result in the shape of an initialize result, for passthrough mode.
    init_result = json::object{{"protocolVersion", protocol::modern_protocol_version},
                               {"capabilities", (*result)["capabilities"]}};
    if (auto* meta = result->if_contains("_meta"); meta && meta->is_object())
        if (auto* info = meta->as_object().if_contains(protocol::meta_server_info))
            init_result["serverInfo"] = *info;
    if (auto* i = result->if_contains("instructions"))
        init_result["instructions"] = *i;
    co_return std::nullopt;
}

asio::awaitable<void> upstream_sessions::listen(session_ptr s, std::uint64_t generation,
                                                std::shared_ptr<asio::steady_timer> opened,
                                                std::shared_ptr<asio::steady_timer> sent) {
    // Whatever happens, the handshake waiting for the stream is released.
    struct release {
        std::shared_ptr<asio::steady_timer>& t;
        ~release() {
            if (t)
                done(*t);
        }
    } released{opened}, released_sent{sent};
    auto self = state_.hold(); // a retired client lives until its streams end
    auto alive = [&] { return !state_.closed && s->life.current(generation); };
    while (alive()) {
        auto& ep = *s->ep;
        auto cred = co_await exchange_.credentials().line(s->caller.get());
        if (!std::holds_alternative<std::string>(cred))
            co_return; // the next request's handshake tries again
        auto c = co_await exchange_.connect(ep);
        if (!std::holds_alternative<transport::upstream_connection>(c))
            co_return; // the next request's handshake opens a new stream
        auto conn = std::make_shared<transport::upstream_connection>(
            std::move(std::get<transport::upstream_connection>(c)));
        if (!alive()) {
            conn->lowest().close();
            co_return;
        }
        s->listening = conn;
        auto wire = listen_wire(*s, std::get<std::string>(cred));
        if (!wire) {
            conn->lowest().close();
            co_return;
        }
        // 405: the upstream offers no stream. Anything else but 200: the session is gone or
        // refused; the next request re-initializes and listens again.
        bool streamed = co_await exchange_.follow_stream(
            *conn, *wire, false,
            [&] {
                if (opened)
                    done(*std::exchange(opened, nullptr));
            },
            alive,
            [&](upstream_message message) {
                if (alive())
                    heard_.message(s->bridge, std::move(message));
            },
            [&] {
                if (sent)
                    done(*std::exchange(sent, nullptr));
            });
        if (s->listening == conn)
            s->listening.reset();
        if (!streamed || !alive())
            co_return;
        // The upstream closed a working stream (a restart, an idle cut): open it again after
        // a pause, unless the session ends meanwhile.
        s->relisten = std::make_shared<asio::steady_timer>(state_.ex, std::chrono::seconds(1));
        boost::system::error_code wait_ec;
        co_await s->relisten->async_wait(asio::redirect_error(asio::use_awaitable, wait_ec));
    }
}

std::optional<std::string> upstream_sessions::listen_wire(const upstream_session& s,
                                                          const std::string& credential) {
    auto wire = exchange_.stream_wire(*s.ep, s.state, credential);
    if (auto* refused = std::get_if<upstream_failure>(&wire)) {
        spdlog::warn("{}", refused->message);
        return std::nullopt;
    }
    return std::move(std::get<std::string>(wire));
}

} // namespace gate::gateway
