// What an upstream's authorization side sends gate as its OAuth client (strategy
// user-account), on arbitrary text: the protected resource metadata, the authorization
// server's metadata, a token endpoint's answer and a Bearer challenge; and an introspection
// endpoint's answer about an opaque inbound token (auth.introspection). Never crashes; what is
// accepted holds what gate relies on (the issuer asked for, http(s) endpoints, S256, a token
// that can go in a header, a subject, a time bound), and a refusal says why.
#include "protocol/oauth/introspection_answer.hpp"
#include "protocol/oauth/metadata.hpp"
#include "protocol/oauth/token_answer.hpp"

#include <cstdint>
#include <cstdlib>

namespace oauth = gate::protocol::oauth;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto prm = oauth::read_resource_metadata(text, "https://mcp.example/v1/mcp");
    if (auto* m = std::get_if<oauth::resource_metadata>(&prm)) {
        if (m->authorization_servers.empty())
            std::abort();
        for (const auto& as : m->authorization_servers)
            if (!oauth::is_http_url(as))
                std::abort();
    } else if (std::get<std::string>(prm).empty()) {
        std::abort();
    }
    auto server = oauth::read_server_metadata(text, "https://as.example");
    if (auto* m = std::get_if<oauth::server_metadata>(&server)) {
        if (m->issuer != "https://as.example" || !oauth::is_http_url(m->token_endpoint) ||
            !oauth::is_http_url(m->authorization_endpoint))
            std::abort();
    } else if (std::get<std::string>(server).empty()) {
        std::abort();
    }
    for (unsigned status : {200u, 400u}) {
        auto token = oauth::read_token_answer(status, text);
        if (auto* t = std::get_if<oauth::issued_token>(&token)) {
            if (status != 200 || t->access_token.empty() || !oauth::header_safe(t->access_token) ||
                !oauth::header_safe(t->refresh_token))
                std::abort();
        } else if (std::get<oauth::token_refusal>(token).why.empty()) {
            std::abort();
        }
    }
    constexpr std::int64_t now = 1'800'000'000;
    auto seen = oauth::read_introspection(
        200, text, {"https://gate.example/mcp", std::nullopt, "https://as.example/introspect", 60},
        now);
    if (auto* who = std::get_if<oauth::introspected>(&seen)) {
        if (who->subject.empty() || who->issuer.empty() || who->believed_until > now + 60)
            std::abort();
    } else if (std::get<oauth::introspection_refusal>(seen).why.empty()) {
        std::abort();
    }
    auto challenge = oauth::read_bearer_challenge(text);
    if (challenge.scope.size() > text.size() || challenge.resource_metadata.size() > text.size())
        std::abort();
    return 0;
}
