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
    // reason: queue_full (over the session's bound), write_timeout (the client took nothing)
    void stream_cut(std::string_view reason);
    // reason: stream_cut (lost with their stream), backlog_full (no GET stream took them),
    // not_json_rpc (a stdout line of the child that is not a JSON-RPC message)
    void messages_dropped(std::string_view reason, std::size_t n);
    void stderr_suppressed(std::size_t n);
    // Of the not_json_rpc lines, those the rate limit kept out of the log.
    void stdout_suppressed(std::size_t n);

    std::string serialize() const;

private:
    std::shared_ptr<prometheus::Registry> registry_;
    prometheus::Gauge& sessions_;
    prometheus::Counter& spawned_;
    prometheus::Counter& spawn_errors_;
    prometheus::Family<prometheus::Counter>& rejected_;
    prometheus::Family<prometheus::Counter>& streams_cut_;
    prometheus::Family<prometheus::Counter>& messages_dropped_;
    prometheus::Counter& stderr_suppressed_;
    prometheus::Counter& stdout_suppressed_;
};

} // namespace gate::shim
