// Resource subscriptions gate holds at upstreams (their root sessions, or their listens) for a
// holder: a listener of a 2026-07-28 client, or a session subscribed at a 2026-07-28 upstream.
// Each (upstream, URI) is held at most once per holder, however often it subscribes, and all
// of a holder's are released when it ends. The upstream client counts its holders, so a URI
// two holders share is subscribed upstream once.
#pragma once

#include "gateway/upstream/upstream_client.hpp"

#include <boost/asio/awaitable.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace gate::gateway {

class subscription_holds {
public:
    // What a hold did: refused (the upstream's failure), or held; `added`: the holder did not
    // hold it before (the bridge keeper hears of it then).
    struct held {
        std::optional<upstream_failure> refused;
        bool added = false;
    };
    boost::asio::awaitable<held> hold(const std::string& holder,
                                      const std::shared_ptr<upstream_client>& owner,
                                      const std::string& uri);
    // False when `holder` did not hold it (nothing released).
    bool release(const std::string& holder, const std::string& upstream, const std::string& uri);
    void release_all(const std::string& holder);
    bool holds(const std::string& holder, const std::string& upstream,
               const std::string& uri) const;

private:
    // By holder: (upstream id, URI) -> the client that holds it (a reload may replace it).
    std::unordered_map<
        std::string, std::map<std::pair<std::string, std::string>, std::weak_ptr<upstream_client>>>
        held_;
};

} // namespace gate::gateway
