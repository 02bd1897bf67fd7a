// Stage 5: authorize. Without a policy section (the only form this build accepts:
// config/unsupported.cpp refuses `policy`) every invocation is allowed and the request
// continues.
#include "transport/pipeline/gateway_stages.hpp"

namespace gate::transport::pipeline {

namespace {

class authorize final : public stage {
public:
    transport::stage id() const override { return transport::stage::authorize; }
    boost::asio::awaitable<verdict> run(request_context&) override { co_return verdict::proceed; }
};

} // namespace

std::unique_ptr<stage> make_authorize() {
    return std::make_unique<authorize>();
}

} // namespace gate::transport::pipeline
