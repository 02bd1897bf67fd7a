// The fleet's shared list cache as the list methods use it: implemented by fleet_sessions
// (gateway/fleet/), which does nothing outside a fleet.
#pragma once

#include "actors/federation/router_messages.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "protocol/client_profile.hpp"
#include "protocol/list_kind.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <string>
#include <vector>

namespace gate::gateway {

class list_sharing {
public:
    // What the fleet's shared cache holds of a plan's fetches, taken out of them.
    virtual boost::asio::awaitable<void> fill_from_fleet(protocol::list_kind kind,
                                                         actors::list_plan& plan,
                                                         const request_context& rec) = 0;
    // A fetched list, for the rest of the fleet (`sources`: each item as the upstream wrote it).
    virtual void share_list(protocol::list_kind kind, protocol::client_profile profile,
                            const upstream_client& client, const boost::json::array& items,
                            const std::vector<std::string>& sources) = 0;

    // An upstream's lists changed: what the fleet shares of them is dropped.
    virtual void drop_shared_lists(const upstream_client& client) = 0;

protected:
    ~list_sharing() = default;
};

} // namespace gate::gateway
