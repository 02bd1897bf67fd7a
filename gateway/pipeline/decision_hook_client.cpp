#include "gateway/pipeline/decision_hook_client.hpp"

#include "gateway/operations/metrics.hpp"
#include "protocol/trace_context.hpp"
#include "transport/client/http_fetch.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/http/header_writer.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdlib>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr std::size_t max_answer_bytes = 64 * 1024;
constexpr std::size_t max_question_bytes = 1024 * 1024;

std::string_view verdict_name(hook_answer::said s) {
    switch (s) {
    case hook_answer::said::allow:
        return "allow";
    case hook_answer::said::deny:
        return "deny";
    case hook_answer::said::error:
        return "error";
    }
    return "error";
}

// A question's own header lines: an Idempotency-Key of its own, the same when it is asked
// again on a fresh connection (a hook that acts on a question, an approval service paging a
// person, acts once), and the trace context it was asked in, when it reads as one.
std::string question_fields(std::string_view traceparent) {
    std::string fields;
    transport::header_writer head(fields);
    head.field("Idempotency-Key", protocol::random_hex(16));
    if (protocol::parse_traceparent(traceparent))
        head.field("traceparent", traceparent);
    return fields;
}

hook_answer failed(std::string kind, std::string error, bool caller_caused = false) {
    hook_answer a;
    a.error_kind = std::move(kind);
    a.error = std::move(error);
    a.caller_caused = caller_caused;
    return a;
}

// The statuses by which a hook says the question itself was wrong (unreadable, too large, not
// what it can judge): the question's text is the caller's, so the caller can bring them about.
bool refuses_question(unsigned status) {
    return status == 400 || status == 413 || status == 422;
}

} // namespace

json::object hook_answer::audit(policy::hook_stage stage) const {
    json::object o{{"stage", hook_stage_name(stage)}, {"verdict", verdict_name(what)}};
    if (!reason.empty())
        o["reason"] = reason;
    if (what == said::error)
        o["error"] = error;
    if (cached)
        o["cached"] = true;
    return o;
}

std::string hook_answer::client_error() const {
    if (!told.empty())
        return told;
    if (error_kind == "timeout")
        return "it did not answer in time";
    if (error_kind == "unreachable")
        return "it could not be reached";
    if (error_kind == "busy")
        return "too many decisions were waiting for it";
    return error; // status and malformed: what the answer was, no address
}

decision_hook_client::decision_hook_client(asio::any_io_executor ex, metrics& stats)
    : ex_(std::move(ex)), stats_(stats) {}

// From the question's own configuration: a question of a hook a reload replaced never carries
// the new one's token, nor the other way round. missing_secrets refused a document whose
// variable is unset or holds a line break.
std::string_view decision_hook_client::token_of(const config::decision_hook& hook) {
    if (!hook.bearer_secret_ref)
        return {};
    const char* token = std::getenv(hook.bearer_secret_ref->c_str());
    return token ? std::string_view(token) : std::string_view();
}

std::shared_ptr<const decision_hook_client::prepared_hook>
decision_hook_client::prepared_for(const config::decision_hook& hook) {
    auto token = token_of(hook);
    if (prepared_ && prepared_->url == hook.url && prepared_->token == token)
        return prepared_;
    std::vector<std::pair<std::string, std::string>> fields;
    if (!token.empty())
        fields.emplace_back("Authorization", "Bearer " + std::string(token));
    prepared_ = std::make_shared<const prepared_hook>(
        prepared_hook{hook.url, std::string(token),
                      transport::prepare_post(hook.url, "application/json", fields)});
    return prepared_;
}

asio::awaitable<hook_answer> decision_hook_client::ask(const config::decision_hook& hook,
                                                       policy::hook_stage stage,
                                                       std::string description,
                                                       std::string_view traceparent) {
    if (description.size() > max_question_bytes) {
        // A result or arguments too large to post whole: decided as onError says, never sent
        // cut (a hook that reads content would allow what it did not see).
        auto a = failed("too_large",
                        "the question would be " + std::to_string(description.size()) +
                            " bytes, over gate's bound of 1 MiB",
                        true);
        count(stage, a, hook);
        co_return a;
    }
    auto now = clock::now();
    // Remembered per hook: a verdict of one hook is never another's.
    auto key = hook.cache_ttl_ms > 0 ? hook.url + '\n' + description : std::string();
    if (hook.cache_ttl_ms > 0)
        if (auto v = memory_.recall(key, now)) {
            hook_answer a;
            a.what = v->allowed ? hook_answer::said::allow : hook_answer::said::deny;
            a.reason = std::move(v->reason);
            a.cached = true;
            count(stage, a, hook);
            co_return a;
        }
    auto deadline = now + std::chrono::milliseconds(hook.timeout_ms);
    hook_answer a;
    if (!co_await take_turn(hook.max_concurrent, deadline)) {
        a = failed("busy",
                   std::to_string(hook.max_concurrent) +
                       " questions were already out (maxConcurrent) until its timeout",
                   true);
    } else {
        // The turn is given back however the exchange ends (an exception included).
        struct turn {
            decision_hook_client& c;
            ~turn() { c.end_turn(); }
        } held{*this};
        a = co_await exchange(hook, description, traceparent, deadline);
    }
    if (a.what != hook_answer::said::error && hook.cache_ttl_ms > 0)
        memory_.remember(key, {a.what == hook_answer::said::allow, a.reason}, clock::now(),
                         std::chrono::milliseconds(hook.cache_ttl_ms));
    count(stage, a, hook);
    co_return a;
}

asio::awaitable<hook_answer> decision_hook_client::exchange(const config::decision_hook& hook,
                                                            const std::string& description,
                                                            std::string_view traceparent,
                                                            clock::time_point deadline) {
    auto start = clock::now();
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - start);
    if (left.count() <= 0)
        co_return failed("busy", "its timeout passed while waiting for a turn (maxConcurrent)",
                         true);
    // Held while the question is out: a reload may write another head meanwhile.
    auto prepared = prepared_for(hook);
    if (const auto* why = std::get_if<std::string>(&prepared->post))
        co_return failed("unreachable", *why);
    if (!tls_ && hook.url.starts_with("https"))
        tls_ = transport::make_client_tls_context();
    auto got =
        co_await http_post(ex_, std::get<transport::prepared_post>(prepared->post), description,
                           left, max_answer_bytes, tls_, pool_, question_fields(traceparent));
    double seconds = std::chrono::duration<double>(clock::now() - start).count();
    if (auto* why = std::get_if<std::string>(&got)) {
        auto has = [&](std::string_view s) { return why->find(s) != std::string::npos; };
        // A name not resolved in time ("resolution timeout after") or a connection not made
        // ("connect timeout after") is a timeout too: timeoutMs covers them.
        bool too_long = has("answered more than");
        auto kind = has("did not answer within") || has("timeout after") ? "timeout"
                    : too_long                                           ? "malformed"
                                                                         : "unreachable";
        auto a = failed(kind, *why);
        if (too_long) // http_fetch's words name the hook's URL: the client's do not
            a.told = "its answer was more than " + std::to_string(max_answer_bytes) + " bytes";
        a.seconds = seconds;
        co_return a;
    }
    const auto& answer = std::get<transport::fetch_answer>(got);
    auto read = policy::read_hook_answer(answer.status, answer.body);
    hook_answer a;
    if (auto* why = std::get_if<std::string>(&read)) {
        a = failed(answer.status >= 200 && answer.status <= 299 ? "malformed" : "status", *why,
                   refuses_question(answer.status));
    } else {
        auto& v = std::get<policy::hook_verdict>(read);
        a.what = v.allowed ? hook_answer::said::allow : hook_answer::said::deny;
        a.reason = std::move(v.reason);
    }
    a.seconds = seconds;
    co_return a;
}

asio::awaitable<bool> decision_hook_client::take_turn(std::int64_t configured,
                                                      clock::time_point deadline) {
    auto max = (configured + threads_ - 1) / threads_;
    max_ = max;
    grant_waiting();
    if (in_flight_ < max && waiting_ == 0) {
        ++in_flight_;
        report_turns();
        co_return true;
    }
    auto w = std::make_shared<waiter>(ex_);
    w->timer.expires_at(deadline);
    queue_.push_back(w);
    ++waiting_;
    report_turns();
    boost::system::error_code ec;
    co_await w->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (w->granted)
        co_return true; // end_turn counted it in
    w->gone = true;     // end_turn passes it over
    --waiting_;
    report_turns();
    co_return false;
}

void decision_hook_client::report_turns() {
    stats_.decision_hook().questions_moved(in_flight_ - reported_out_,
                                           waiting_ - reported_waiting_);
    reported_out_ = in_flight_;
    reported_waiting_ = waiting_;
}

void decision_hook_client::end_turn() {
    --in_flight_;
    grant_waiting();
}

// Turns go to the longest waiters still waiting while fewer than maxConcurrent are out (more
// than one when a reload raised it).
void decision_hook_client::grant_waiting() {
    while (in_flight_ < max_ && !queue_.empty()) {
        auto w = std::move(queue_.front());
        queue_.pop_front();
        if (w->gone)
            continue;
        w->granted = true;
        w->timer.cancel();
        --waiting_;
        ++in_flight_;
    }
    report_turns();
}

void decision_hook_client::count(policy::hook_stage stage, const hook_answer& a,
                                 const config::decision_hook& hook) {
    auto name = hook_stage_name(stage);
    if (a.what == hook_answer::said::error) {
        stats_.decision_hook().error(name, a.error_kind);
        if (a.allowed(hook))
            stats_.decision_hook().failed_open(name);
        // A hook that is down fails every question: one line per 10 s says so, the metric
        // counts each.
        auto now = clock::now();
        if (now - last_warned_ >= std::chrono::seconds(10)) {
            last_warned_ = now;
            spdlog::warn("decision hook: {} ({}; further failures within 10 s are counted in "
                         "gate_decision_hook_errors_total only)",
                         a.error, a.error_kind);
        }
    } else {
        stats_.decision_hook().decision(name, verdict_name(a.what), a.cached);
    }
    if (!a.cached && a.error_kind != "busy" && a.error_kind != "too_large")
        stats_.decision_hook().latency(name, a.seconds);
}

} // namespace gate::gateway
