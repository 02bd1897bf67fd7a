// Every route gate-hooks serves, in one table: the API dispatches on it, `gate-hooks --routes`
// prints it, and a test checks that each is in docs/webhooks-openapi.json. Plain C++.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::hooks {

enum class route_id {
    health,
    metrics,
    console,
    console_alias,
    console_asset,
    list_webhooks,
    create_webhook,
    get_webhook,
    update_webhook,
    delete_webhook,
    test_webhook,
    webhook_deliveries,
    webhook_attempts,
    delivery_attempts,
    ingest_event,
    dead_letter_stats,
    dead_letters,
    retry_dead_letters,
    stats,
};

struct route_spec {
    route_id id;
    std::string_view method;
    std::string_view path; // "{name}" matches one segment
    bool authenticated;
};

inline constexpr std::array<route_spec, 19> routes = {{
    {route_id::health, "GET", "/health", false},
    {route_id::metrics, "GET", "/metrics", false},
    {route_id::console, "GET", "/", false},
    {route_id::console_alias, "GET", "/console", false},
    {route_id::console_asset, "GET", "/console/{asset}", false},
    {route_id::list_webhooks, "GET", "/webhooks", true},
    {route_id::create_webhook, "POST", "/webhooks", true},
    {route_id::get_webhook, "GET", "/webhooks/{id}", true},
    {route_id::update_webhook, "PATCH", "/webhooks/{id}", true},
    {route_id::delete_webhook, "DELETE", "/webhooks/{id}", true},
    {route_id::test_webhook, "POST", "/webhooks/{id}/test", true},
    {route_id::webhook_deliveries, "GET", "/webhooks/{id}/deliveries", true},
    {route_id::webhook_attempts, "GET", "/webhooks/{id}/attempts", true},
    {route_id::delivery_attempts, "GET", "/webhook-deliveries/{id}/attempts", true},
    {route_id::ingest_event, "POST", "/events", true},
    {route_id::dead_letter_stats, "GET", "/webhook-deliveries/dlq/stats", true},
    {route_id::dead_letters, "GET", "/webhook-deliveries/dlq", true},
    {route_id::retry_dead_letters, "POST", "/webhook-deliveries/dlq/{webhook_id}/retry", true},
    {route_id::stats, "GET", "/stats", true},
}};

struct route_match {
    const route_spec* route;
    std::vector<std::string> params; // the {name} segments, in order
};
struct no_route {};
struct wrong_method {
    std::string allow; // "GET, POST"
};

// HEAD is answered like GET.
std::variant<route_match, no_route, wrong_method> match_route(std::string_view method,
                                                              std::string_view path);

} // namespace gate::hooks
