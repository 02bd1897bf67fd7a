#include "actors/policy/policy_memo.hpp"

namespace gate {

policy_decision policy_memo::decide(const std::shared_ptr<const policy_engine>& engine,
                                    const principal* caller, std::string_view server,
                                    std::span<const std::string_view> methods,
                                    std::string_view name, std::string_view client_name) {
    if (engine != engine_) {
        decisions_.clear();
        engine_ = engine;
    }
    key_.clear();
    engine->append_principal_key(key_, caller);
    append_key_part(key_, server);
    for (auto m : methods)
        append_key_part(key_, m);
    append_key_part(key_, name);
    append_key_part(key_, client_name);
    if (auto it = decisions_.find(key_); it != decisions_.end())
        return it->second;
    auto d = engine->decide(caller, server, methods, name, client_name);
    if (decisions_.size() >= max_)
        decisions_.clear();
    decisions_.emplace(key_, d);
    return d;
}

} // namespace gate
