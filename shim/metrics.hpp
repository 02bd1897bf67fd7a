// gate-stdio's Prometheus series (spec: "Shim endpoints"), plus the process_* collectors.
#pragma once

#include <memory>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <string>
#include <string_view>

namespace gate::shim {

class shim_metrics {
public:
    explicit shim_metrics(std::size_t max_sessions);

    void sessions(std::size_t live);
    void spawned();
    void spawn_error();
    // reason: session_limit, unauthorized, forbidden_host, forbidden_origin,
    // unsupported_media_type, body_too_large
    void rejected(std::string_view reason);

    std::string serialize() const;

private:
    std::shared_ptr<prometheus::Registry> registry_;
    prometheus::Gauge& sessions_;
    prometheus::Counter& spawned_;
    prometheus::Counter& spawn_errors_;
    prometheus::Family<prometheus::Counter>& rejected_;
};

} // namespace gate::shim
