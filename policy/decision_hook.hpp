// The decision hook's words as plain C++ (docs/decision-hook.md): the description gate posts
// for one decision, what an answer says, and the answers remembered for the configured
// lifetime. No I/O here: gateway/pipeline/decision_hook_client posts and waits.
#pragma once

#include "policy/principal.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

namespace gate::policy {

// Where in a request's life the hook is asked.
enum class hook_stage : std::uint8_t { call, result, server_request };
std::string_view hook_stage_name(hook_stage s);

// One decision to describe. Pointers may be null: `arguments` and `result` are sent only when
// the configuration asks for them.
struct hook_question {
    hook_stage stage = hook_stage::call;
    const principal* who = nullptr; // null: anonymous
    std::optional<std::string_view> tenant;
    std::string_view method;
    std::string_view name;                // as the client named it ("" for none)
    std::string_view upstream;            // the upstream's id
    std::string_view upstream_name;       // the item's name or URI as the upstream knows it
    std::optional<std::string_view> rule; // the rule that allowed it; nullopt: the default
    const boost::json::object* arguments = nullptr;
    const boost::json::value* result = nullptr; // a result's `result`, or an error's `error`
    std::optional<bool> is_error;               // the result stage: the answer is an error
    // The texts `arguments` and `result` were read from (empty: none; what follows the value
    // is ignored): the hook reads them as their writer wrote them, numbers included (Boost.JSON
    // writes 1e400 as Infinity, which no hook can parse, and 0.50 as 5E-1).
    std::string_view arguments_source;
    std::string_view result_source;
};

// The description as JSON text, members in a fixed order (it is also the memory's key).
std::string describe(const hook_question& q);

// What the hook said. The reason is cleaned for logs and error messages: control characters
// replaced, at most max_reason bytes (cut on a character boundary).
struct hook_verdict {
    bool allowed = false;
    std::string reason;
};
inline constexpr std::size_t max_reason = 300;

// An answer read: the verdict, or why it is not one (a status, not JSON, no decision, ...).
std::variant<hook_verdict, std::string> read_hook_answer(unsigned status, std::string_view body);

// Answers remembered for a fixed lifetime, keyed by a digest of the description; oldest out
// first (with one lifetime, insertion order is expiry order), at most `capacity` held.
class hook_memory {
public:
    using time_point = std::chrono::steady_clock::time_point;
    explicit hook_memory(std::size_t capacity = 10000) : capacity_(capacity) {}

    std::optional<hook_verdict> recall(const std::string& description, time_point now);
    void remember(const std::string& description, hook_verdict v, time_point now,
                  std::chrono::milliseconds ttl);
    void clear();
    std::size_t size() const { return held_.size(); }

private:
    void expire(time_point now);
    struct entry {
        hook_verdict verdict;
        time_point until;
    };
    std::size_t capacity_;
    std::unordered_map<std::string, entry> held_;
    std::deque<std::pair<std::string, time_point>> order_;
};

} // namespace gate::policy
