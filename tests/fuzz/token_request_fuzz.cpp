// A token request's form body at the token endpoint (auth.ema), on arbitrary text, through
// everything gate does with it before any network I/O: reading the form, parsing the
// assertion as a compact JWS and checking its ID-JAG claims. Never crashes; a refusal is one
// of RFC 6749's codes with a reason.
#include "protocol/jose/id_jag.hpp"
#include "protocol/jose/jws.hpp"
#include "protocol/token_request.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view body(reinterpret_cast<const char*>(data), size);
    auto read = gate::protocol::read_token_request(body);
    if (auto* no = std::get_if<gate::protocol::token_request_refusal>(&read)) {
        if ((no->error != "invalid_request" && no->error != "unsupported_grant_type") ||
            no->why.empty())
            std::abort();
        return 0;
    }
    const auto& request = std::get<gate::protocol::token_request>(read);
    if (request.assertion.empty())
        std::abort();
    auto parsed = gate::protocol::jose::parse_compact(request.assertion);
    if (auto* jws = std::get_if<gate::protocol::jose::compact_jws>(&parsed)) {
        gate::protocol::jose::id_jag_rules rules{
            "https://idp.example", {"https://gate.example"}, "https://gate.example/mcp"};
        auto checked = gate::protocol::jose::check_id_jag(*jws, rules, 1795514400);
        if (auto* why = std::get_if<std::string>(&checked); why && why->empty())
            std::abort();
    }
    return 0;
}
