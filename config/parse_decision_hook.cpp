// policy.decisionHook: the outside decision point gate asks after its own rules allowed
// (docs/decision-hook.md). Every field is read or refused here; the URL must be https unless
// it is on loopback, since what gate sends it names principals and, when asked, arguments
// and results.
#include "config/parse_sections.hpp"

#include <set>

namespace gate::config::detail {

namespace {

constexpr std::int64_t max_timeout_ms = 60000;
constexpr std::int64_t max_concurrency = 10000;
constexpr std::int64_t max_cache_ttl_ms = 3600000;

// One of `names`, each at most once, none else: the set read, or nullopt (reported).
std::optional<std::set<std::string>> read_choice(const object_view& o, std::string_view key,
                                                 const std::set<std::string>& names,
                                                 bool empty_allowed) {
    auto values = o.strings(key);
    if (!values)
        return std::nullopt;
    std::set<std::string> out;
    std::string allowed;
    for (const auto& n : names)
        allowed += (allowed.empty() ? "" : ", ") + quoted(n);
    for (std::size_t i = 0; i < values->size(); ++i) {
        const auto& v = (*values)[i];
        auto at = child_pointer(o.pointer_of(key), i);
        if (!names.contains(v))
            o.errors().add(at, quoted(v) + " is not one of " + allowed);
        else if (!out.insert(v).second)
            o.errors().add(at, quoted(v) + " is named twice");
    }
    if (out.empty() && values->empty() && !empty_allowed)
        o.fail(key, "must name at least one of " + allowed);
    return out;
}

void read_bounded(const object_view& o, std::string_view key, std::int64_t low, std::int64_t high,
                  std::int64_t& out) {
    auto v = o.integer(key);
    if (!v)
        return;
    if (*v < low || *v > high)
        o.fail(key, "must be between " + std::to_string(low) + " and " + std::to_string(high) +
                        " (got " + std::to_string(*v) + ")");
    else
        out = *v;
}

} // namespace

void parse_decision_hook(const object_view& policy, std::optional<decision_hook>& out) {
    const auto* v = policy.find("decisionHook");
    if (v == nullptr)
        return;
    object_view o(*v, policy.pointer_of("decisionHook"), policy.errors(),
                  {"url", "bearerSecretRef", "timeoutMs", "onError", "stages", "include",
                   "maxConcurrent", "cacheTtlMs"});
    if (!o.ok())
        return;
    decision_hook h;
    o.require("url", "the http(s) URL gate posts each decision's description to");
    h.url = read_http_url(o, "url", true).value_or("");
    h.bearer_secret_ref = read_env_name(o, "bearerSecretRef");
    read_bounded(o, "timeoutMs", 1, max_timeout_ms, h.timeout_ms);
    h.on_error = o.one_of("onError", {"deny", "allow"}).value_or("deny");
    if (auto stages = read_choice(o, "stages", {"call", "result", "serverRequest"}, false)) {
        h.at_call = stages->contains("call");
        h.at_result = stages->contains("result");
        h.at_server_request = stages->contains("serverRequest");
    }
    if (auto include = read_choice(o, "include", {"arguments", "result"}, true)) {
        h.send_arguments = include->contains("arguments");
        h.send_result = include->contains("result");
        if (h.send_result && !h.at_result)
            o.fail("include", "\"result\" is sent only at the \"result\" stage, which "
                              "`stages` does not name");
    }
    read_bounded(o, "maxConcurrent", 1, max_concurrency, h.max_concurrent);
    read_bounded(o, "cacheTtlMs", 0, max_cache_ttl_ms, h.cache_ttl_ms);
    out = std::move(h);
}

} // namespace gate::config::detail
