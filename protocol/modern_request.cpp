#include "protocol/modern_request.hpp"

#include "protocol/json_rpc.hpp"

#include <algorithm>
#include <array>
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

std::optional<json::object> missing_capabilities(std::string_view method,
                                                 const json::object* params) {
    bool needs_tasks =
        method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel";
    if (method == "subscriptions/listen" && params)
        if (auto* n = params->if_contains("notifications"); n && n->is_object())
            needs_tasks = n->get_object().contains("taskIds");
    if (!needs_tasks)
        return std::nullopt;
    auto* meta = params ? params->if_contains("_meta") : nullptr;
    auto* m = meta ? meta->if_object() : nullptr;
    auto* caps = m ? m->if_contains(meta_client_capabilities) : nullptr;
    auto* c = caps ? caps->if_object() : nullptr;
    auto* ext = c ? c->if_contains("extensions") : nullptr;
    if (ext && ext->is_object() && ext->get_object().contains(tasks_extension))
        return std::nullopt;
    return json::object{{"extensions", {{tasks_extension, json::object{}}}}};
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
    return {gateway_error::header_mismatch,
            gateway_error_text(gateway_error::header_mismatch, {message}),
            {}};
}

modern_refusal invalid(std::string what) {
    return {gateway_error::invalid_params_modern,
            gateway_error_text(gateway_error::invalid_params_modern, {what}),
            {}};
}

} // namespace

std::optional<std::string_view> named_member(std::string_view method) {
    if (method == "tools/call" || method == "prompts/get")
        return "name";
    if (method == "resources/read")
        return "uri";
    // The tasks extension of 2026-07-28 names the task.
    if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel")
        return "taskId";
    return std::nullopt;
}

std::string_view named_value(std::string_view method, const json::object* params) {
    auto member = named_member(method);
    auto* v = member && params ? params->if_contains(*member) : nullptr;
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::string encode_header_value(std::string_view value) {
    // Plain when it is printable ASCII, has no whitespace at either end (a header's value would
    // lose it) and cannot be read as the encoding's own sentinel.
    bool plain = true;
    for (unsigned char c : value)
        plain = plain && c >= 0x20 && c < 0x7f;
    plain = plain && !value.starts_with(' ') && !value.ends_with(' ') &&
            !(value.starts_with("=?base64?") && value.ends_with("?="));
    if (plain)
        return std::string(value);
    std::string out(4 * ((value.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(value.data()),
                            static_cast<int>(value.size()));
    out.resize(static_cast<std::size_t>(n));
    return "=?base64?" + out + "?=";
}

namespace {

constexpr std::array<std::string_view, 8> log_levels = {"debug", "info",     "notice", "warning",
                                                        "error", "critical", "alert",  "emergency"};

// Its place in the order of severity; the end for a name that is not a level.
std::size_t severity(std::string_view level) {
    return static_cast<std::size_t>(std::find(log_levels.begin(), log_levels.end(), level) -
                                    log_levels.begin());
}

} // namespace

bool is_log_level(std::string_view level) {
    return severity(level) < log_levels.size();
}

std::optional<json::object> answer_for_client(const json::object& request,
                                              std::string_view call_method,
                                              const json::object& client_capabilities) {
    auto* method = request.if_contains("method");
    auto* id = request.if_contains("id");
    if (!method || !method->is_string() || !id)
        return std::nullopt;
    std::string_view m = method->get_string();
    if (m == "ping")
        return json::object{{"jsonrpc", "2.0"}, {"id", *id}, {"result", json::object{}}};
    std::string_view needs = m == "elicitation/create"       ? "elicitation"
                             : m == "sampling/createMessage" ? "sampling"
                             : m == "roots/list"             ? "roots"
                                                             : "";
    bool may_ask = call_method == "tools/call" || call_method == "prompts/get" ||
                   call_method == "resources/read";
    if (may_ask && !needs.empty() && client_capabilities.contains(needs))
        return std::nullopt;
    std::string why;
    if (!may_ask)
        why = std::string(m) + " cannot be asked of a 2026-07-28 client during " +
              std::string(call_method);
    else if (needs.empty())
        why = std::string(m) + " is not asked of a 2026-07-28 client";
    else
        why = "the client declared no " + std::string(needs) + " capability for " + std::string(m);
    return json::object{{"jsonrpc", "2.0"},
                        {"id", *id},
                        {"error", {{"code", error_code::method_not_found}, {"message", why}}}};
}

bool wants_message(const json::object& message, const std::optional<std::string>& wanted) {
    auto* method = message.if_contains("method");
    if (!method || !method->is_string() || method->get_string() != "notifications/message")
        return true;
    if (!wanted)
        return false; // the revision: no logLevel, no log messages
    auto* params = message.if_contains("params");
    auto* level =
        params && params->is_object() ? params->as_object().if_contains("level") : nullptr;
    if (!level || !level->is_string())
        return true;
    return severity(level->get_string()) >= severity(*wanted);
}

void add_envelope(json::object& params, const json::object& client_capabilities,
                  const json::object& client_info) {
    auto& meta = params["_meta"];
    if (!meta.is_object())
        meta = json::object{};
    auto& m = meta.as_object();
    m[meta_protocol_version] = modern_protocol_version;
    m[meta_client_capabilities] = client_capabilities;
    m[meta_client_info] = client_info;
}

unsigned modern_answer_status(const json::object& response) {
    auto* e = response.if_contains("error");
    auto* error = e ? e->if_object() : nullptr;
    auto* c = error ? error->if_contains("code") : nullptr;
    if (!c || !c->is_int64())
        return 200;
    switch (c->get_int64()) {
    case error_code::method_not_found:
        return 404;
    case modern_code::header_mismatch:
    case modern_code::missing_client_capability:
    case modern_code::unsupported_protocol_version:
        return 400;
    default:
        return 200;
    }
}

void remove_envelope(json::object& params) {
    auto* meta = params.if_contains("_meta");
    auto* m = meta ? meta->if_object() : nullptr;
    if (!m)
        return;
    for (auto key :
         {meta_protocol_version, meta_client_capabilities, meta_client_info, meta_log_level})
        m->erase(key);
    if (m->empty())
        params.erase("_meta");
}

std::optional<modern_refusal> check_modern_request(std::string_view method,
                                                   const json::object* params,
                                                   const modern_headers& headers) {
    auto version = claimed_version(params);
    if (!version)
        return invalid("_meta." + std::string(meta_protocol_version) + " is required");
    // A header that does not mirror the body is the first thing wrong with the request,
    // whatever version either names.
    if (headers.protocol_version != *version)
        return mismatch("MCP-Protocol-Version header (" + headers.protocol_version +
                        ") must equal _meta." + std::string(meta_protocol_version) + " (" +
                        *version + ")");
    if (*version != modern_protocol_version) {
        json::object data{{"supported", json::array{modern_protocol_version}},
                          {"requested", *version}};
        return modern_refusal{gateway_error::unsupported_version_modern,
                              gateway_error_text(gateway_error::unsupported_version_modern,
                                                 {*version, modern_protocol_version}),
                              std::move(data)};
    }
    auto* meta = params->at("_meta").if_object();
    auto* caps = meta ? meta->if_contains(meta_client_capabilities) : nullptr;
    if (!caps || !caps->is_object())
        return invalid("_meta." + std::string(meta_client_capabilities) +
                       " is required and must be an object");
    if (auto* level = meta->if_contains(meta_log_level);
        level && (!level->is_string() || !is_log_level(level->get_string())))
        return invalid("_meta." + std::string(meta_log_level) +
                       " must be one of debug, info, notice, warning, error, critical, alert, "
                       "emergency");
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

bool offers_modern_version(const boost::json::object& response) {
    const auto* e = response.if_contains("error");
    const auto* error = e ? e->if_object() : nullptr;
    const auto* code = error ? error->if_contains("code") : nullptr;
    if (!code || !code->is_int64() ||
        code->get_int64() != modern_code::unsupported_protocol_version)
        return false;
    const auto* d = error->if_contains("data");
    const auto* data = d ? d->if_object() : nullptr;
    const auto* s = data ? data->if_contains("supported") : nullptr;
    const auto* supported = s ? s->if_array() : nullptr;
    if (!supported)
        return false;
    for (const auto& v : *supported)
        if (v.is_string() && v.get_string() == modern_protocol_version)
            return true;
    return false;
}

} // namespace gate::protocol
