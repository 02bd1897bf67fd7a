// The judge of what upstreams ask clients (sampling, elicitation, roots, a 2026-07-28
// upstream's input requests): the policy and the decision hook's serverRequest stage, as
// upstream_traffic applies them to requests on sessions' streams. The upstream calls put a
// call's own stream through the same judge (docs/security.md).
#pragma once

#include "actors/federation/federation.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/upstream/upstream_message.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace gate::gateway {

class server_request_judge {
public:
    // Whether upstream `upstream` may send `request` to the client of `who` (null: anonymous).
    // A denied one is audited and, with `bridge`, answered -32042 to the upstream on that
    // session; false then. Without a policy, and for ping and notifications, true.
    virtual bool admit_server_request(const federation_view& view, std::size_t upstream,
                                      const policy::caller_ref& who,
                                      const boost::json::object& request,
                                      const std::optional<std::string>& bridge) = 0;
    // Whether the decision hook is asked about `request` (policy.decisionHook stages
    // "serverRequest"): a request, not ping, with a hook configured to be asked. `embedded`:
    // a 2026-07-28 upstream's input request, which has no id of its own.
    virtual bool hook_asks(const federation_view& view, const boost::json::object& request,
                           bool embedded) = 0;
    // Asks it: true when allowed. A denial, or a failure under onError "deny", is audited and,
    // with `bridge`, answered -32042 to the upstream on that session.
    virtual boost::asio::awaitable<bool> hook_admits(std::shared_ptr<const federation_view> view,
                                                     std::size_t upstream, policy::caller_ref who,
                                                     boost::json::object request,
                                                     std::optional<std::string> bridge) = 0;
    // The same in the background for a message read from a stream: allowed, `deliver` has it
    // (false: its client is gone, and the upstream is told so).
    virtual void judge_then_deliver(std::shared_ptr<const federation_view> view,
                                    std::size_t upstream, policy::caller_ref who,
                                    upstream_message m, std::string bridge,
                                    std::function<bool(upstream_message&)> deliver) = 0;

protected:
    ~server_request_judge() = default;
};

} // namespace gate::gateway
