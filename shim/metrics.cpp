#include "shim/metrics.hpp"

#include "process/process_collector.hpp"
#include "process/version.hpp"

#include <prometheus/gauge.h>

namespace gate::shim {

shim_metrics::shim_metrics(std::size_t max_sessions)
    : registry_(std::make_shared<prometheus::Registry>()),
      sessions_(prometheus::BuildGauge()
                    .Name("gate_stdio_sessions")
                    .Help("Live sessions, each with its own child process.")
                    .Register(*registry_)
                    .Add({})),
      spawned_(prometheus::BuildCounter()
                   .Name("gate_stdio_spawned_total")
                   .Help("Child processes started.")
                   .Register(*registry_)
                   .Add({})),
      spawn_errors_(prometheus::BuildCounter()
                        .Name("gate_stdio_spawn_errors_total")
                        .Help("Child processes that could not be started.")
                        .Register(*registry_)
                        .Add({})),
      rejected_(prometheus::BuildCounter()
                    .Name("gate_stdio_rejected_total")
                    .Help("Requests refused before reaching a child, by reason.")
                    .Register(*registry_)),
      streams_cut_(prometheus::BuildCounter()
                       .Name("gate_stdio_streams_cut_total")
                       .Help("Client event streams cut because the client was not reading, by "
                             "reason.")
                       .Register(*registry_)),
      messages_dropped_(prometheus::BuildCounter()
                            .Name("gate_stdio_messages_dropped_total")
                            .Help("Server messages dropped on the way to the client, by reason.")
                            .Register(*registry_)),
      stderr_suppressed_(prometheus::BuildCounter()
                             .Name("gate_stdio_stderr_lines_suppressed_total")
                             .Help("Lines children wrote to stderr that the rate limit kept out "
                                   "of the log.")
                             .Register(*registry_)
                             .Add({})),
      stdout_suppressed_(prometheus::BuildCounter()
                             .Name("gate_stdio_stdout_lines_suppressed_total")
                             .Help("Lines children wrote to stdout that are not JSON-RPC "
                                   "(dropped) and that the rate limit kept out of the log.")
                             .Register(*registry_)
                             .Add({})) {
    prometheus::BuildGauge()
        .Name("gate_stdio_max_sessions")
        .Help("The session ceiling (--max-sessions).")
        .Register(*registry_)
        .Add({})
        .Set(static_cast<double>(max_sessions));
    prometheus::BuildGauge()
        .Name("gate_stdio_build_info")
        .Help("Build information; the value is always 1.")
        .Register(*registry_)
        .Add({{"version", std::string(process::gate_release)}})
        .Set(1);
    // Every reason is exported from the start, at 0, so alerts need no absent() guard.
    for (auto reason : {"session_limit", "unauthorized", "forbidden_host", "forbidden_origin",
                        "unsupported_media_type", "body_too_large"})
        rejected_.Add({{"reason", reason}});
    for (auto reason : {"queue_full", "write_timeout"})
        streams_cut_.Add({{"reason", reason}});
    for (auto reason : {"stream_cut", "backlog_full", "not_json_rpc"})
        messages_dropped_.Add({{"reason", reason}});
}

void shim_metrics::sessions(std::size_t live) {
    sessions_.Set(static_cast<double>(live));
}

void shim_metrics::spawned() {
    spawned_.Increment();
}

void shim_metrics::spawn_error() {
    spawn_errors_.Increment();
}

void shim_metrics::rejected(std::string_view reason) {
    rejected_.Add({{"reason", std::string(reason)}}).Increment();
}

void shim_metrics::stream_cut(std::string_view reason) {
    streams_cut_.Add({{"reason", std::string(reason)}}).Increment();
}

void shim_metrics::messages_dropped(std::string_view reason, std::size_t n) {
    messages_dropped_.Add({{"reason", std::string(reason)}}).Increment(static_cast<double>(n));
}

void shim_metrics::stderr_suppressed(std::size_t n) {
    stderr_suppressed_.Increment(static_cast<double>(n));
}

void shim_metrics::stdout_suppressed(std::size_t n) {
    stdout_suppressed_.Increment(static_cast<double>(n));
}

std::string shim_metrics::serialize() const {
    return process::exposition_with_process_metrics(registry_->Collect());
}

} // namespace gate::shim
