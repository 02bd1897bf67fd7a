// An answer's event stream that ended without the answer, resumed as 2025-11-25 says (SSE
// polling, docs/protocol-eras.md): a GET with Last-Event-ID after the upstream's retry:.
#include "gateway/upstream/exchange_parts.hpp"
#include "gateway/upstream/upstream_client_parts.hpp"
#include "gateway/upstream/upstream_exchange.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;
using namespace upstream::parts;

asio::awaitable<std::variant<http_answer, upstream_failure>> upstream_exchange::resume_answer(
    upstream_endpoint& ep, const session_state& session, const call_context& ctx,
    clock::time_point deadline, const session_origin* origin, call_cancel* cancel,
    const json::value* want_id, http_answer answer, const std::string& credential) {
    // Bounded: an upstream that keeps closing its streams, or asks for long waits, is not
    // followed for ever (the deadline bounds it too).
    constexpr int max_resumptions = 5;
    constexpr auto default_retry = std::chrono::milliseconds(1000);
    constexpr auto longest_retry = std::chrono::milliseconds(10000);
    for (int attempt = 0; attempt < max_resumptions && !answer.message; ++attempt) {
        auto wait = std::min(answer.retry.value_or(default_retry), longest_retry);
        if (clock::now() + wait >= deadline)
            co_return fail(upstream_failure::kind::timeout,
                           "upstream closed the answer's stream and asked to resume it after " +
                               std::to_string(wait.count()) + " ms, past the request's deadline");
        if (cancel && cancel->requested())
            co_return cancelled(*cancel);
        asio::steady_timer pause(state_.ex, wait);
        {
            // A cancellation meanwhile ends the pause (the upstream is told by the call's own
            // request, which is still out).
            cancel_watch cut_short(cancel, [&pause] { pause.cancel(); });
            boost::system::error_code ignored;
            co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
        }
        if (cancel && cancel->requested())
            co_return cancelled(*cancel);
        auto written = stream_wire(ep, session, credential, answer.resume_from);
        if (auto* f = std::get_if<upstream_failure>(&written))
            co_return std::move(*f);
        const auto& wire = std::get<std::string>(written);
        auto c = co_await connect(ep);
        if (auto* f = std::get_if<upstream_failure>(&c))
            co_return *f;
        auto& conn = std::get<transport::upstream_connection>(c);
        http_answer next;
        bool header_read = false, reusable = false;
        boost::system::error_code ec;
        auto reader =
            std::make_shared<answer_reader>(answer_limit_of(ctx), state_.answer_bytes_read);
        if (co_await guarded_round_trip(conn, {wire, want_id, next, header_read, reusable, ec, ctx,
                                               origin, *reader, deadline, cancel}))
            co_return cancelled(*cancel);
        if (next.stream_unfinished && !state_.closed)
            asio::co_spawn(state_.ex, drain(ep, std::move(conn), std::move(reader)),
                           asio::detached);
        if (ec)
            if (auto f = read_failure(ep, ec, header_read, next, *reader))
                co_return std::move(*f);
        if (next.status != 200)
            co_return fail(upstream_failure::kind::http_status,
                           "resuming the answer's stream (GET with Last-Event-ID) was answered "
                           "HTTP " +
                               std::to_string(next.status),
                           next.status);
        // An event id holds until another replaces it (EventSource keeps the last one).
        if (next.resume_from.empty())
            next.resume_from = answer.resume_from;
        next.session_id = answer.session_id;
        answer = std::move(next);
    }
    co_return answer;
}

} // namespace gate::gateway
