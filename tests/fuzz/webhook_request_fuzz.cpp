// gate-hooks' API bodies: a webhook to create and a change to one, as any JSON a client may
// send. Either accepted or refused with the field it names; never a crash.
#include "hooks/webhook_request.hpp"

#include <boost/json/parse.hpp>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    boost::system::error_code ec;
    auto body = boost::json::parse(text, ec);
    if (ec)
        return 0;
    (void)gate::hooks::parse_webhook_spec(body);
    (void)gate::hooks::parse_webhook_patch(body);
    if (auto* s = body.if_string())
        (void)gate::hooks::check_target_url(*s);
    return 0;
}
