// What the stages that admit and record a request (authenticate) ask of the gateway, answered by
// its parts: the token authenticator. Each stage sees only its own interface
// (gateway/pipeline/s2_authenticate.hpp ...), never gateway::impl.
#pragma once

#include "gateway/entry/gateway.hpp"
#include "gateway/pipeline/s2_authenticate.hpp"

namespace gate::transport {

class guard_stage_services final : public pipeline::authenticate_services {
public:
    explicit guard_stage_services(gateway::impl& g) : g_(g) {}

    // Stage 2: the token authenticator (used only with auth.mode "required").
    std::optional<result> authenticate_now(std::optional<std::string_view> authorization,
                                           bool query_token) override;
    boost::asio::awaitable<result> authenticate(std::optional<std::string_view> authorization,
                                                bool query_token) override;

private:
    gateway::impl& g_;
};

} // namespace gate::transport
