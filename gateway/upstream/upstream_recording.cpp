// gate --record: each request sent to an upstream and its answer, heard by the tap.
#include "gateway/upstream/upstream_recording.hpp"

#include "gateway/operations/traffic_tap.hpp"

namespace gate::gateway {

void upstream_recording::heard(const call_context& ctx, sent what, std::string_view method,
                               const upstream_reply& reply) {
    using k = upstream_failure::kind;
    if (const auto* f = std::get_if<upstream_failure>(&reply);
        f && (f->what == k::circuit_open || f->what == k::rate_limited))
        return; // gate's own guards refused it: nothing went to the upstream, nothing answered
    actors::heard_answer h;
    h.request = ctx.recorded;
    h.at = what.at;
    h.upstream = upstream_;
    h.method = std::string(method);
    h.params = std::move(what.params);
    if (auto* m = std::get_if<upstream_message>(&reply)) {
        h.reply = m->raw();
    } else {
        const auto& f = std::get<upstream_failure>(reply);
        switch (f.what) {
        case k::connect_error:
            h.failure_kind = "connect_error";
            break;
        case k::timeout:
            h.failure_kind = "timeout";
            break;
        case k::http_status:
            h.failure_kind = "http_status";
            break;
        default:
            h.failure_kind = "protocol";
            break;
        }
        h.status = f.status;
        h.failure_message = f.message;
    }
    tap_->heard(std::move(h));
}

} // namespace gate::gateway
