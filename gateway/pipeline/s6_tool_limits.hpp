// Stage 6's tool limits (upstreams[].toolLimits): a tools/call is counted in the windows of each
// entry whose names match the upstream's own tool name (actors/guards/tool_limits), everyone's
// and the caller's own, before the upstream's own guards admit it. Each window is spent
// through a lease of the io thread's like stage 3's (s3_global_limit.hpp): a batch of the
// fleet's window from its store when there is one, else of the limiter actor's; neither
// answering lets the call through (gate's fault is not the client's). Refused: -32040 naming
// the upstream, the tool and the limit, with the retry hint in `data`.
#pragma once

#include "actors/guards/sliding_window.hpp"
#include "actors/guards/slot_demand.hpp"
#include "actors/guards/tool_limits.hpp"
#include "gateway/pipeline/lease_table.hpp"
#include "gateway/pipeline/request_context.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gate::gateway::pipeline {

class tool_limit_services {
public:
    using batch = actors::sliding_window::batch;
    // Whether the limiter actor runs now (between a crash and its respawn it does not).
    virtual bool limiting() const = 0;
    // A batch of the fleet's window `scope` from its shared store; nullopt without a store,
    // or when it does not answer.
    virtual boost::asio::awaitable<std::optional<batch>>
    take_shared(const std::string& scope, std::int64_t per_minute,
                const actors::slot_demand& demand) = 0;
    // A batch of this instance's window from the limiter (tool_limit_ask); nullopt when it
    // does not answer.
    virtual boost::asio::awaitable<std::optional<batch>>
    take_tool(const std::string& scope, const std::string& principal, std::int64_t per_minute,
              const actors::slot_demand& demand) = 0;

protected:
    ~tool_limit_services() = default;
};

class tool_limits {
public:
    using time_point = actors::sliding_window::time_point;
    struct refusal {
        actors::tool_window_ref window;
        actors::sliding_window::batch batch;
    };

    tool_limits(tool_limit_services& s, lease_table& leases) : s_(s), leases_(leases) {}

    // The windows `ctx`'s call is counted in: none but for a tools/call of an upstream with
    // toolLimits, or while the limiter does not run.
    std::vector<actors::tool_window_ref> windows_of(const request_context& ctx) const;
    // Spends a slot of each window's lease, in order; the place of the first with none left
    // (windows.size(): every one admitted).
    std::size_t take_now(const std::vector<actors::tool_window_ref>& windows, time_point now);
    // The windows from `first` on, each admitted through its lease or a batch asked for; the
    // first refusal, if one refuses.
    boost::asio::awaitable<std::optional<refusal>>
    take(std::vector<actors::tool_window_ref> windows, std::size_t first);
    // The refusal answered to the client (-32040, outcome rate_limited), with `data` naming the
    // tool, the limit ("everyone" or "principal") and the retry hint in milliseconds.
    static boost::json::object refuse(request_context& ctx, const refusal& r);

private:
    tool_limit_services& s_;
    lease_table& leases_;
};

} // namespace gate::gateway::pipeline
