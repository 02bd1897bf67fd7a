#include "protocol/json_rpc.hpp"

#include "protocol/json_preserve.hpp"

#include <algorithm>
#include <array>
#include <boost/json/serialize.hpp>
#include <boost/json/serializer.hpp>
#include <charconv>
#include <variant>

namespace gate::protocol {

namespace json = boost::json;

const json::object* message::params() const {
    auto it = body.find("params");
    return it != body.end() ? it->value().if_object() : nullptr;
}

json::object message::take_params() {
    auto it = body.find("params");
    if (it == body.end() || !it->value().is_object())
        return {};
    return std::move(it->value().as_object());
}

namespace {
bool valid_id(const json::value& id) {
    return id.is_string() || id.is_int64() || id.is_uint64();
}

// A table: the check runs on every message at the door.
constexpr std::array<bool, 256> method_chars = [] {
    std::array<bool, 256> t{};
    for (int c = '0'; c <= '9'; ++c)
        t[c] = true;
    for (int c = 'a'; c <= 'z'; ++c)
        t[c] = t[c - 'a' + 'A'] = true;
    for (char c : std::string_view("/_-.$:"))
        t[static_cast<unsigned char>(c)] = true;
    return t;
}();
} // namespace

bool valid_method_name(std::string_view method) {
    if (method.empty() || method.size() > max_method_bytes)
        return false;
    for (char c : method)
        if (!method_chars[static_cast<unsigned char>(c)])
            return false;
    return true;
}

std::variant<message, rpc_error> classify(json::value v) {
    if (v.is_array())
        return rpc_error{error_code::invalid_request, "batch requests are not supported", nullptr};
    auto* obj = v.if_object();
    if (!obj)
        return rpc_error{error_code::invalid_request, "a JSON-RPC message must be an object",
                         nullptr};
    json::value id = nullptr;
    auto id_at = obj->find("id");
    bool has_id = id_at != obj->end();
    if (has_id)
        id = id_at->value();
    auto jv = obj->find("jsonrpc");
    if (jv == obj->end() || !jv->value().is_string() || jv->value().get_string() != "2.0")
        return rpc_error{error_code::invalid_request, "\"jsonrpc\" must be \"2.0\"",
                         valid_id(id) ? id : nullptr};
    if (has_id && !valid_id(id))
        return rpc_error{error_code::invalid_request, "\"id\" must be a string or an integer",
                         nullptr};
    if (auto m = obj->find("method"); m != obj->end()) {
        if (!m->value().is_string())
            return rpc_error{error_code::invalid_request, "\"method\" must be a string", id};
        if (!valid_method_name(m->value().get_string()))
            return rpc_error{error_code::invalid_request,
                             "\"method\" is not an MCP method name (1 to 256 letters, digits and "
                             "/ _ - . $ :)",
                             id};
        if (auto p = obj->find("params");
            p != obj->end() && !p->value().is_object() && !p->value().is_null())
            return rpc_error{error_code::invalid_request, "\"params\" must be an object", id};
        message msg{has_id ? message_kind::request : message_kind::notification, {}, {}, id};
        msg.method = std::string(m->value().get_string());
        msg.body = std::move(*obj);
        return msg;
    }
    if (has_id && (obj->contains("result") || obj->contains("error")))
        return message{message_kind::response, std::move(*obj), {}, id};
    return rpc_error{error_code::invalid_request,
                     "a message needs \"method\" (request) or \"result\"/\"error\" (response)", id};
}

json::object make_error(const json::value& id, int code, std::string_view text) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", text}}}};
}

json::object make_result(const json::value& id, json::value result) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json::object make_cancelled(const json::value& request_id, const json::value* reason) {
    json::object params{{"requestId", request_id}};
    if (reason)
        params["reason"] = *reason;
    return {
        {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", std::move(params)}};
}

namespace {
void append_integer(std::string& out, std::int64_t n) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
}
} // namespace

std::string id_text(const json::value& id) {
    if (!id.is_int64())
        return json::serialize(id);
    std::string out;
    append_integer(out, id.get_int64());
    return out;
}

std::string request_text(std::int64_t id, std::string_view method, const json::object* params,
                         std::string_view params_source) {
    std::string out;
    out.reserve(256 + method.size() + params_source.size());
    out.append(R"({"jsonrpc":"2.0","id":)");
    append_integer(out, id);
    out.append(R"(,"method":)");
    // Method names are plain ASCII: written as they are; anything else goes through the
    // serializer's escaping.
    bool plain = std::all_of(method.begin(), method.end(),
                             [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
    if (plain)
        out.append("\"").append(method).append("\"");
    else
        out.append(json::serialize(json::string_view(method.data(), method.size())));
    if (params && !params_source.empty()) {
        out.append(R"(,"params":)");
        write_preserving(*params, params_source, out);
    } else if (params) {
        out.append(R"(,"params":)");
        json::serializer sr;
        sr.reset(params);
        while (!sr.done()) {
            auto at = out.size();
            out.resize(std::max(out.capacity(), at + 64));
            out.resize(at + sr.read(out.data() + at, out.size() - at).size());
        }
    }
    out.append("}");
    return out;
}

} // namespace gate::protocol
