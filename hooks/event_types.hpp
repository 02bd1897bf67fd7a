// The platform events a webhook can subscribe to (spec: "Webhook events (platform)").
#pragma once

#include <array>
#include <string_view>

namespace gate::hooks {

inline constexpr std::array<std::string_view, 5> platform_events = {
    "deploy.success", "deploy.failed", "activation.error", "rollback.success", "usage.threshold"};

// The type of the payload the test action sends (not an event a webhook subscribes to).
inline constexpr std::string_view test_event = "webhook.test";

bool is_platform_event(std::string_view type);

} // namespace gate::hooks
