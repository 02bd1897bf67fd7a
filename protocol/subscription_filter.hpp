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

// The most tasks one listen may ask to hear of: each is looked up (and may be held at its
// upstream), so a listen naming a million ids is refused rather than served.
inline constexpr std::size_t max_listened_tasks = 256;

struct subscription_filter {
    bool tools_list_changed = false;
    bool prompts_list_changed = false;
    bool resources_list_changed = false;
    std::set<std::string> resource_subscriptions;
    // The tasks extension's `taskIds`: the tasks whose `notifications/tasks` are wanted.
    std::set<std::string> task_ids;

    bool empty() const {
        return !tools_list_changed && !prompts_list_changed && !resources_list_changed &&
               resource_subscriptions.empty() && task_ids.empty();
    }
    // Whether a notification (`method`, and `subject`: the `uri` of resources/updated, the
    // `taskId` of notifications/tasks) is wanted.
    bool accepts(std::string_view method, std::string_view subject) const;
    // The wire form: only what is asked for.
    boost::json::object to_json() const;
    // What a server with `capabilities` (its initialize or discovery capabilities) can
    // deliver of this filter: task ids only where it offers the tasks extension.
    subscription_filter honoured_by(const boost::json::object& capabilities) const;
    friend bool operator==(const subscription_filter&, const subscription_filter&) = default;
};

// The member a notification is filtered on: `params.uri` of resources/updated, `params.taskId`
// of notifications/tasks (a view into `notification`; empty otherwise).
std::string_view notification_subject(const boost::json::object& notification);

// `params.notifications` of a listen request; the error text names the bad member.
std::variant<subscription_filter, std::string>
parse_subscription_filter(const boost::json::object* params);

// `params._meta[subscriptionId] = id`, keeping the rest of `params._meta`.
void stamp_subscription(boost::json::object& notification, const boost::json::value& id);
// Removes an upstream's subscription id (and `_meta`, when nothing else is in it).
void strip_subscription(boost::json::object& notification);

} // namespace gate::protocol
