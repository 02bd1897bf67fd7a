#include "hooks/failure_kind.hpp"

namespace gate::hooks {

std::string_view failure_kind(std::string_view error) {
    // By the start of each text the sender and the connection make; the order matters where
    // one start begins another ("cannot connect: Connection refused").
    if (error.starts_with("timeout") || error.starts_with("connect timeout"))
        return "timeout";
    if (error.starts_with("cannot connect: "))
        return error.find("Connection refused") != std::string_view::npos ? "refused" : "connect";
    if (error.starts_with("TLS"))
        return "tls";
    if (error.starts_with("cannot resolve "))
        return "dns";
    if (error.starts_with("refused: "))
        return "blocked";
    if (error.starts_with("the url"))
        return "invalid_url";
    if (error.starts_with("no answer"))
        return "no_answer";
    return "other";
}

std::optional<std::string> attempt_failure(const attempt_result& r) {
    if (r.status)
        return std::nullopt;
    return std::string(failure_kind(r.error.value_or("")));
}

} // namespace gate::hooks
