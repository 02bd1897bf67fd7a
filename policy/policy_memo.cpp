#include "policy/policy_memo.hpp"

namespace gate::policy {

policy_decision policy_memo::decide(const std::shared_ptr<const policy_engine>& engine,
                                    const principal* caller, const invocation& what) {
    if (engine != engine_) {
        decisions_.clear();
        engine_ = engine;
    }
    // Arguments are the caller's to vary, and names longer than any tool's (a URI may be) would
    // let one caller fill the memo with its keys: decided afresh.
    constexpr std::size_t longest_remembered = 512;
    if ((engine->reads_arguments() && what.arguments) ||
        what.name.size() + what.client_name.size() + what.other_name.size() > longest_remembered)
        return engine->decide(caller, what);
    key_.clear();
    engine->append_principal_key(key_, caller);
    append_key_part(key_, what.server);
    for (auto m : what.methods)
        append_key_part(key_, m);
    append_key_part(key_, what.name);
    append_key_part(key_, what.client_name);
    append_key_part(key_, what.other_name);
    key_ += what.listing ? 'l' : 'c';
    if (engine->reads_annotations())
        key_ += what.hints ? static_cast<char>('0' + what.hints->set) : '-';
    if (auto it = decisions_.find(key_); it != decisions_.end())
        return it->second;
    auto d = engine->decide(caller, what);
    if (decisions_.size() >= max_)
        decisions_.clear();
    decisions_.emplace(key_, d);
    return d;
}

} // namespace gate::policy
