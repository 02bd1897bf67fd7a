// Each operation forwards to the part that answers it; the coroutines the stages await are the
// parts' own.
#include "gateway/entry/guard_stage_services.hpp"

#include "gateway/entry/gateway_impl.hpp"

namespace gate::transport {

std::optional<guard_stage_services::result>
guard_stage_services::authenticate_now(std::optional<std::string_view> authorization,
                                       bool query_token) {
    return g_.authenticator->authenticate_now(authorization, query_token);
}

boost::asio::awaitable<guard_stage_services::result>
guard_stage_services::authenticate(std::optional<std::string_view> authorization,
                                   bool query_token) {
    return g_.authenticator->authenticate(authorization, query_token);
}

} // namespace gate::transport
