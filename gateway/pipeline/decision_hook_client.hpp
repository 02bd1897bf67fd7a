// The io thread's side of policy.decisionHook (docs/decision-hook.md): each question posted to
// the hook within its timeout on a connection kept open between questions, at most maxConcurrent at
// once (the rest wait their turn within the same timeout), answers remembered for cacheTtlMs, and
// every decision, failure and latency counted. What a description says and what an answer means are
// plain C++ (policy/decision_hook). A question is one buffer after a head written once per
// hook URL and token (http_fetch's prepare_post): a saturated io thread pays for every
// instruction a question costs with every session waiting behind it (docs/benchmarks.md).
#pragma once

#include "config/model.hpp"
#include "policy/decision_hook.hpp"
#include "transport/client/http_fetch.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

namespace gate::gateway {

class metrics;

// What asking came to: the hook's verdict, or the failure (onError then decides, unless the
// caller could have caused it).
struct hook_answer {
    enum class said : std::uint8_t { allow, deny, error };
    said what = said::error;
    std::string reason;     // the hook's, for allow and deny
    std::string error;      // what failed: "timed out after 1000 ms", "it answered HTTP 500"
    std::string error_kind; // timeout, unreachable, busy, status, malformed, too_large
    bool cached = false;
    double seconds = 0; // the exchange's time; 0 from memory
    std::string told{}; // what the client is told of a failure, where the kind does not say
    // A failure the caller can bring about: a question over gate's bound (its arguments), the
    // queue full (its calls), a question the hook answered 400, 413 or 422 (its text).
    bool caller_caused = false;

    // onError "allow" lets through the hook's own failures (down, slow, broken), never one
    // the caller can cause: a caller would cause it to pass what the hook denies.
    bool allowed(const config::decision_hook& h) const {
        return what == said::allow ||
               (what == said::error && h.on_error == "allow" && !caller_caused);
    }
    // The failure as a client is told it: without the hook's address (the audit and the log
    // have it).
    std::string client_error() const;
    // The audit event's `hook` member: {stage, verdict, reason?, error?, cached?}.
    boost::json::object audit(policy::hook_stage stage) const;
};

// What the stages ask: a unit test fakes it.
class hook_asker {
public:
    // `traceparent`: the trace context of gate's work on the request asked about (empty:
    // none), sent with the question so the hook's own spans join the request's trace.
    virtual boost::asio::awaitable<hook_answer> ask(const config::decision_hook& hook,
                                                    policy::hook_stage stage,
                                                    std::string description,
                                                    std::string_view traceparent) = 0;

protected:
    ~hook_asker() = default;
};

class decision_hook_client final : public hook_asker {
public:
    decision_hook_client(boost::asio::any_io_executor ex, metrics& stats);
    boost::asio::awaitable<hook_answer> ask(const config::decision_hook& hook,
                                            policy::hook_stage stage, std::string description,
                                            std::string_view traceparent) override;
    // One of `threads` io threads, each asking the hook with its own connections: each takes
    // its share of maxConcurrent (rounded up; docs/io-threads.md).
    void share_among(std::int64_t threads) { threads_ = threads < 1 ? 1 : threads; }

private:
    using clock = std::chrono::steady_clock;
    struct waiter {
        explicit waiter(boost::asio::any_io_executor ex) : timer(std::move(ex)) {}
        boost::asio::steady_timer timer;
        bool granted = false, gone = false;
    };
    boost::asio::awaitable<hook_answer> exchange(const config::decision_hook& hook,
                                                 const std::string& description,
                                                 std::string_view traceparent,
                                                 clock::time_point deadline);
    // A turn among the hook's maxConcurrent, waited for until `deadline`: false when none
    // came in time.
    boost::asio::awaitable<bool> take_turn(std::int64_t max, clock::time_point deadline);
    void end_turn();
    void grant_waiting();
    // This thread's turns out and waiting, into the process's gauges.
    void report_turns();
    // The head of a hook's questions: the URL and the bearer token it was written for, and
    // the prepared POST or why gate will not send it.
    struct prepared_hook {
        std::string url, token;
        std::variant<transport::prepared_post, std::string> post;
    };
    // The head for `hook` as its question goes out now: the kept one while the URL and the
    // token are the same, written again when either changed (a reload, a rotated secret).
    // Shared: a question still out keeps the head it was sent with.
    std::shared_ptr<const prepared_hook> prepared_for(const config::decision_hook& hook);
    static std::string_view token_of(const config::decision_hook& hook);
    void count(policy::hook_stage stage, const hook_answer& a, const config::decision_hook& hook);

    boost::asio::any_io_executor ex_;
    metrics& stats_;
    std::shared_ptr<boost::asio::ssl::context> tls_;
    transport::fetch_pool pool_; // connections kept open to the hook between questions
    std::shared_ptr<const prepared_hook> prepared_;
    policy::hook_memory memory_;
    std::int64_t in_flight_ = 0;
    std::int64_t max_ = 64;    // maxConcurrent of the latest question's configuration
    std::int64_t threads_ = 1; // this thread's share of it
    std::int64_t waiting_ = 0; // in queue_ and not gone
    // What this thread last added to the process's gauges (report_turns).
    std::int64_t reported_out_ = 0, reported_waiting_ = 0;
    std::deque<std::shared_ptr<waiter>> queue_;
    clock::time_point last_warned_{};
};

} // namespace gate::gateway
