// gate --record: each request sent to an upstream and its answer (or why there is none), heard
// by the recording tap (gateway/operations/traffic_tap). Without a tap nothing is copied.
#pragma once

#include "gateway/upstream/upstream_call.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway {

class traffic_tap;

class upstream_recording {
public:
    // `upstream`: the upstream's id, outliving the recording (the client's configuration).
    explicit upstream_recording(const std::string& upstream) : upstream_(upstream) {}

    // Set once, before the first call.
    void through(std::shared_ptr<traffic_tap> tap) { tap_ = std::move(tap); }

    // What a request's record keeps from before it is sent: its params (they are moved into
    // the request) and when it went.
    struct sent {
        boost::json::object params;
        std::chrono::system_clock::time_point at;
    };
    // Nothing unless recording: the hot path copies nothing.
    std::optional<sent> before(const boost::json::object& params) const {
        if (!tap_)
            return std::nullopt;
        return sent{params, std::chrono::system_clock::now()};
    }
    // The request `what` went as `method` for `ctx`, and `reply` came back.
    void heard(const call_context& ctx, sent what, std::string_view method,
               const upstream_reply& reply);

private:
    const std::string& upstream_;
    std::shared_ptr<traffic_tap> tap_;
};

} // namespace gate::gateway
