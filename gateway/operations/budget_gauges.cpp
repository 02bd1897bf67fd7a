#include "gateway/operations/budget_gauges.hpp"

namespace gate::gateway {

namespace {

prometheus::Family<prometheus::Gauge>& gauge(prometheus::Registry& r, const char* name,
                                             const char* help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(r);
}

// "upstream alpha" -> {scope: upstream, name: alpha}; "server" -> {scope: server, name:
// gateway} (an empty label value is no label to PromQL).
prometheus::Labels labels_of(const std::string& account) {
    auto space = account.find(' ');
    if (space == std::string::npos)
        return {{"scope", account}, {"name", "gateway"}};
    return {{"scope", account.substr(0, space)}, {"name", account.substr(space + 1)}};
}

} // namespace

budget_gauges::budget_gauges(prometheus::Registry& registry)
    : allowance_(gauge(registry, "gate_budget_allowance",
                       "A budget's allowance of upstream invocations per period")),
      reserved_(gauge(registry, "gate_budget_reserved",
                      "Invocations this instance reserved of a budget in its current period "
                      "(sum over a fleet: the share used)")),
      spent_(gauge(registry, "gate_budget_spent",
                   "Invocations this instance charged to a budget in its current period")),
      exhausted_(gauge(registry, "gate_budget_exhausted",
                       "1 when a reservation of a budget found nothing left this period")) {}

void budget_gauges::show(const std::vector<budget_sample>& samples) {
    std::map<std::string, series> now;
    for (const auto& s : samples) {
        auto it = shown_.find(s.account);
        series g;
        if (it != shown_.end()) {
            g = it->second;
        } else {
            auto labels = labels_of(s.account);
            g = {&allowance_.Add(labels), &reserved_.Add(labels), &spent_.Add(labels),
                 &exhausted_.Add(labels)};
        }
        g.allowance->Set(static_cast<double>(s.allowance));
        g.reserved->Set(static_cast<double>(s.reserved));
        g.spent->Set(static_cast<double>(s.spent));
        g.exhausted->Set(s.exhausted ? 1 : 0);
        now.emplace(s.account, g);
    }
    for (const auto& [account, g] : shown_)
        if (!now.contains(account)) {
            allowance_.Remove(g.allowance);
            reserved_.Remove(g.reserved);
            spent_.Remove(g.spent);
            exhausted_.Remove(g.exhausted);
        }
    shown_ = std::move(now);
}

} // namespace gate::gateway
