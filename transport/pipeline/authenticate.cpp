// Stage 2: authenticate. With auth.mode "disabled" (the only mode this build accepts:
// config/unsupported.cpp refuses "required") every caller is anonymous: the context's
// principal stays empty and the request continues.
#include "transport/pipeline/gateway_stages.hpp"

namespace gate::transport::pipeline {

namespace {

class authenticate final : public stage {
public:
    transport::stage id() const override { return transport::stage::authenticate; }
    boost::asio::awaitable<verdict> run(request_context& ctx) override {
        ctx.caller.reset();
        co_return verdict::proceed;
    }
};

} // namespace

std::unique_ptr<stage> make_authenticate() {
    return std::make_unique<authenticate>();
}

} // namespace gate::transport::pipeline
