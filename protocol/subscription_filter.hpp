// `subscriptions/listen` (2026-07-28): the filter a listener asks for, the part a server
// honours, which notifications it lets through, and the subscription id stamped on each.
// Plain C++, used for 2026-07-28 clients of gate and for gate's own listens upstream.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>

namespace gate::protocol {

inline constexpr std::string_view meta_subscription_id = "io.modelcontextprotocol/subscriptionId";
inline constexpr std::string_view subscriptions_acknowledged =
    "notifications/subscriptions/acknowledged";

struct subscription_filter {
    bool tools_list_changed = false;
    bool prompts_list_changed = false;
    bool resources_list_changed = false;
    std::set<std::string> resource_subscriptions;

    bool empty() const {
        return !tools_list_changed && !prompts_list_changed && !resources_list_changed &&
               resource_subscriptions.empty();
    }
    // Whether a change notification (`method`, and `uri` for resources/updated) is wanted.
    bool accepts(std::string_view method, std::string_view uri) const;
    // The wire form: only what is asked for.
    boost::json::object to_json() const;
    // What a server with `capabilities` (its initialize or discovery capabilities) can
    // deliver of this filter.
    subscription_filter honoured_by(const boost::json::object& capabilities) const;
    friend bool operator==(const subscription_filter&, const subscription_filter&) = default;
};

// `params.notifications` of a listen request; the error text names the bad member.
std::variant<subscription_filter, std::string>
parse_subscription_filter(const boost::json::object* params);

// `params._meta[subscriptionId] = id`, keeping the rest of `params._meta`.
void stamp_subscription(boost::json::object& notification, const boost::json::value& id);
// Removes an upstream's subscription id (and `_meta`, when nothing else is in it).
void strip_subscription(boost::json::object& notification);

} // namespace gate::protocol
