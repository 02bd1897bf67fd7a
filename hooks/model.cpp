#include "hooks/model.hpp"

namespace gate::hooks {

const char* to_string(delivery_status s) {
    switch (s) {
    case delivery_status::pending:
        return "pending";
    case delivery_status::delivering:
        return "delivering";
    case delivery_status::succeeded:
        return "succeeded";
    case delivery_status::dead:
        return "dead";
    }
    return "pending";
}

std::optional<delivery_status> delivery_status_from(std::string_view s) {
    for (auto v : {delivery_status::pending, delivery_status::delivering,
                   delivery_status::succeeded, delivery_status::dead})
        if (s == to_string(v))
            return v;
    return std::nullopt;
}

} // namespace gate::hooks
