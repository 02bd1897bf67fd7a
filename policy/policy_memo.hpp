// Decisions of a compiled policy remembered per invocation (who calls what, where): a walk of
// the rules to the caller's grant (with a hundred rules, a hundred subject checks and globs)
// happens once per distinct invocation instead of once per call. Keyed by what the decision
// reads and nothing else (policy_engine::append_principal_key), so two tokens of one principal
// share their decisions and a principal whose groups changed does not. The memo keeps the
// engine it remembers for: a reload's new engine starts it afresh, and no decision outlives
// the policy that made it. Bounded: at the bound it starts afresh. Plain C++, one thread.
#pragma once

#include "policy/policy_engine.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gate::policy {

class policy_memo {
public:
    explicit policy_memo(std::size_t max_entries = 10'000) : max_(max_entries) {}

    // engine->decide(...), remembered; a decision that reads the call's arguments is made
    // afresh each time (they are the caller's to vary).
    policy_decision decide(const std::shared_ptr<const policy_engine>& engine,
                           const principal* caller, const invocation& what);
    std::size_t size() const { return decisions_.size(); }

private:
    std::size_t max_;
    std::shared_ptr<const policy_engine> engine_;
    std::unordered_map<std::string, policy_decision> decisions_;
    std::string key_; // built in place for each lookup
};

} // namespace gate::policy
