#include "protocol/modern_request.hpp"

#include "protocol/json_rpc.hpp"

#include <boost/json/array.hpp>
#include <openssl/evp.h>
#include <vector>

namespace gate::protocol {

namespace json = boost::json;

std::optional<std::string> claimed_version(const json::object* params) {
    auto* meta = params ? params->if_contains("_meta") : nullptr;
    auto* m = meta ? meta->if_object() : nullptr;
    auto* v = m ? m->if_contains(meta_protocol_version) : nullptr;
    if (v && v->is_string())
        return std::string(v->get_string());
    return std::nullopt;
}

std::optional<std::string> decode_header_value(std::string_view raw) {
    constexpr std::string_view open = "=?base64?", close = "?=";
    if (!(raw.starts_with(open) && raw.ends_with(close) &&
          raw.size() >= open.size() + close.size()))
        return std::string(raw);
    auto b64 = raw.substr(open.size(), raw.size() - open.size() - close.size());
    if (b64.size() % 4 != 0)
        return std::nullopt;
    std::vector<unsigned char> out(b64.size() / 4 * 3 + 1);
    int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(b64.data()),
                            static_cast<int>(b64.size()));
    if (n < 0)
        return std::nullopt;
    // EVP_DecodeBlock counts the padding as zero bytes: take them off again.
    std::size_t len = static_cast<std::size_t>(n);
    for (auto it = b64.rbegin(); it != b64.rend() && *it == '=' && len > 0; ++it)
        --len;
    return std::string(reinterpret_cast<const char*>(out.data()), len);
}

namespace {

modern_refusal mismatch(std::string message) {
    return {400, modern_code::header_mismatch, std::move(message), {}};
}

// The body member an `Mcp-Name` header mirrors, for the methods that require one.
std::optional<std::string_view> named_member(std::string_view method) {
    if (method == "tools/call" || method == "prompts/get")
        return "name";
    if (method == "resources/read")
        return "uri";
    return std::nullopt;
}

} // namespace

std::optional<modern_refusal> check_modern_request(std::string_view method,
                                                   const json::object* params,
                                                   const modern_headers& headers) {
    auto version = claimed_version(params);
    if (!version)
        return modern_refusal{400,
                              error_code::invalid_params,
                              "invalid params: _meta." + std::string(meta_protocol_version) +
                                  " is required",
                              {}};
    if (*version != modern_protocol_version) {
        json::object data{{"supported", json::array{modern_protocol_version}},
                          {"requested", *version}};
        return modern_refusal{400, modern_code::unsupported_protocol_version,
                              "unsupported protocol version " + *version +
                                  " without a session: this endpoint serves " +
                                  std::string(modern_protocol_version) +
                                  " statelessly, earlier revisions after initialize",
                              std::move(data)};
    }
    auto* meta = params->at("_meta").if_object();
    auto* caps = meta ? meta->if_contains(meta_client_capabilities) : nullptr;
    if (!caps || !caps->is_object())
        return modern_refusal{400,
                              error_code::invalid_params,
                              "invalid params: _meta." + std::string(meta_client_capabilities) +
                                  " is required and must be an object",
                              {}};
    if (headers.protocol_version != *version)
        return mismatch("MCP-Protocol-Version header (" + headers.protocol_version +
                        ") must equal _meta." + std::string(meta_protocol_version) + " (" +
                        *version + ")");
    if (headers.method != method)
        return mismatch("Mcp-Method header (" + headers.method + ") must equal the method (" +
                        std::string(method) + ")");
    if (auto member = named_member(method)) {
        auto* v = params->if_contains(*member);
        std::string body_name = v && v->is_string() ? std::string(v->get_string()) : "";
        auto header = decode_header_value(headers.name);
        if (!header)
            return mismatch("Mcp-Name header is not valid =?base64?...?= encoding");
        if (*header != body_name || body_name.empty())
            return mismatch("Mcp-Name header (" + *header + ") must equal params." +
                            std::string(*member) + " (" + body_name + ")");
    }
    return std::nullopt;
}

} // namespace gate::protocol
