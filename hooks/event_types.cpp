#include "hooks/event_types.hpp"

#include <algorithm>

namespace gate::hooks {

bool is_platform_event(std::string_view type) {
    return std::find(platform_events.begin(), platform_events.end(), type) != platform_events.end();
}

} // namespace gate::hooks
