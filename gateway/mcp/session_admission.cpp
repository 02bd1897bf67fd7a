// What the table decided, carried out: the eviction told everywhere and logged at most once a
// second, the refusal worded from the table of errors with its Retry-After.
#include "gateway/mcp/session_admission.hpp"

#include "gateway/pipeline/answers.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace http = boost::beast::http;
using clock = std::chrono::steady_clock;

namespace {

// A holder as an operator reads it: a principal's key is its issuer and subject.
std::string holder_text(const std::string& holder) {
    auto nl = holder.find('\n');
    if (nl == std::string::npos)
        return holder; // "anonymous <address>"
    return "principal " + holder.substr(nl + 1) + " of " + holder.substr(0, nl);
}

std::string not_logged(std::uint64_t left_out) {
    return left_out == 0 ? std::string()
                         : " (" + std::to_string(left_out) + " more since the last such line, " +
                               "counted in /metrics but not logged)";
}

// How long a refused caller should wait: a session of its own frees as soon as one of its
// calls ends or a stream closes; the whole table needs others' sessions to end.
constexpr int retry_after_share_s = 10;
constexpr int retry_after_table_s = 60;

} // namespace

bool session_admission::admitted(const session_table::admission& a) {
    if (a.evicted) {
        const auto& e = *a.evicted;
        auto reason = share_reason_label(e.reason);
        counts_.count_eviction(reason);
        if (auto left_out = evictions_logged_.pass(clock::now()))
            spdlog::info("ended an idle session of {} (unused for {} s) to make room for a new "
                         "one: {}{}",
                         holder_text(e.holder),
                         std::chrono::duration_cast<std::chrono::seconds>(e.idle).count(),
                         e.reason == share_reason::caller_share
                             ? "it held its whole share of the session table"
                             : "the table was full and it held the most sessions",
                         not_logged(*left_out));
        services_.end_everywhere(e.id);
    }
    if (!a.id)
        counts_.count_refusal(share_reason_label(a.refused));
    return a.id.has_value();
}

std::optional<std::string>
session_admission::open_session(request_context& rec, const boost::json::object& capabilities) {
    const auto& limits = rec.view->snap->doc->server.sessions;
    auto holder = share_holder(rec.who.caller, rec.admission.peer);
    auto a = sessions_.open({rec.proxied.negotiated_version, capabilities,
                             principal_key(rec.who.caller), rec.who.caller, holder},
                            clock::now());
    if (admitted(a))
        return a.id;
    bool own = a.refused == share_reason::caller_share;
    auto e = own ? gateway_error::caller_sessions_full : gateway_error::sessions_full;
    const auto& text = refuse(rec, e, {std::to_string(own ? limits.per_principal : limits.max)});
    if (auto left_out = refusals_logged_.pass(clock::now()))
        spdlog::warn("initialize of {} refused: {}{}", holder_text(holder), text,
                     not_logged(*left_out));
    rec.answer.refusal_reply->headers.emplace_back(
        "Retry-After", std::to_string(own ? retry_after_share_s : retry_after_table_s));
    return std::nullopt;
}

} // namespace gate::gateway
