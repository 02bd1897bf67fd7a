#include "shim/stateless_flights.hpp"

#include "protocol/json_preserve.hpp"
#include "protocol/modern_request.hpp"
#include "protocol/protocol_versions.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gate::shim {

namespace json = boost::json;
using protocol::message_kind;

namespace {

constexpr std::string_view subscription_key = "io.modelcontextprotocol/subscriptionId";

json::object* meta_of(json::object& body) {
    auto* params = body.if_contains("params");
    auto* p = params ? params->if_object() : nullptr;
    auto* meta = p ? p->if_contains("_meta") : nullptr;
    return meta ? meta->if_object() : nullptr;
}

json::object* params_of(json::object& body) {
    auto* params = body.if_contains("params");
    return params ? params->if_object() : nullptr;
}

std::optional<std::string> key_of(const json::value& child_id) {
    if (child_id.is_int64())
        return std::to_string(child_id.get_int64());
    if (child_id.is_uint64())
        return std::to_string(child_id.get_uint64());
    return std::nullopt;
}

} // namespace

stateless_kind stateless_post_kind(const protocol::message& m, std::string_view version_header) {
    if (m.kind == message_kind::response || m.method == "initialize")
        return stateless_kind::none;
    bool later = false;
    if (!version_header.empty()) {
        later = !protocol::supported_protocol_version(version_header);
    } else {
        auto claimed = protocol::claimed_version(m.params());
        later = claimed && !protocol::supported_protocol_version(*claimed);
    }
    if (!later)
        return stateless_kind::none;
    return m.kind == message_kind::request ? stateless_kind::request : stateless_kind::notification;
}

std::optional<header_refusal> check_stateless_headers(const protocol::message& m,
                                                      std::string_view version_header,
                                                      std::string_view method_header,
                                                      std::string_view name_header) {
    using protocol::modern_code::header_mismatch;
    auto claimed = protocol::claimed_version(m.params());
    if (version_header.empty())
        return header_refusal{header_mismatch, "the MCP-Protocol-Version header is required"};
    if (!claimed || *claimed != version_header)
        return header_refusal{header_mismatch, "MCP-Protocol-Version header (" +
                                                   std::string(version_header) +
                                                   ") must equal _meta." +
                                                   std::string(protocol::meta_protocol_version) +
                                                   " (" + claimed.value_or("absent") + ")"};
    if (method_header != m.method)
        return header_refusal{header_mismatch, "Mcp-Method header (" + std::string(method_header) +
                                                   ") must equal the method (" + m.method + ")"};
    if (auto member = protocol::named_member(m.method);
        member &&
        (m.method == "tools/call" || m.method == "resources/read" || m.method == "prompts/get")) {
        auto body_name = protocol::named_value(m.method, m.params());
        auto header = protocol::decode_header_value(name_header);
        if (name_header.empty() || !header || *header != body_name)
            return header_refusal{header_mismatch, "Mcp-Name header (" + std::string(name_header) +
                                                       ") must equal params." +
                                                       std::string(*member) + " (" +
                                                       std::string(body_name) + ")"};
    }
    if (*claimed == protocol::modern_protocol_version) {
        auto* meta = m.params()->at("_meta").if_object();
        auto* caps = meta->if_contains(protocol::meta_client_capabilities);
        if (!caps || !caps->is_object())
            return header_refusal{protocol::error_code::invalid_params,
                                  "_meta." + std::string(protocol::meta_client_capabilities) +
                                      " is required and must be an object"};
    }
    return std::nullopt;
}

unsigned answer_status(std::string_view answer) {
    boost::system::error_code ec;
    auto parsed = json::parse(answer, ec);
    auto* o = ec ? nullptr : parsed.if_object();
    return o ? protocol::modern_answer_status(*o) : 200; // the revision's rule, as gate's
}

stateless_flights::forwarded stateless_flights::add(protocol::message request, bool streams,
                                                    std::string_view source) {
    auto child_id = ++next_;
    entry e;
    e.client_id = request.id;
    e.streams = streams;
    e.listen = request.method == "subscriptions/listen";
    e.lists_tools = request.method == "tools/list";
    if (auto* meta = meta_of(request.body)) {
        if (auto* token = meta->if_contains("progressToken")) {
            e.progress_token = *token;
            *token = child_id;
        }
        e.wants_log = meta->contains(protocol::meta_log_level);
    }
    request.body["id"] = child_id;
    auto key = std::to_string(child_id);
    by_key_.emplace(key, std::move(e));
    return {std::move(key), protocol::serialize_preserving(request.body, source)};
}

bool stateless_flights::is_listen(const std::string& key) const {
    auto it = by_key_.find(key);
    return it != by_key_.end() && it->second.listen;
}

const stateless_flights::entry* stateless_flights::find(const json::value& child_id,
                                                        std::string& key) const {
    auto k = key_of(child_id);
    if (!k)
        return nullptr;
    auto it = by_key_.find(*k);
    if (it == by_key_.end())
        return nullptr;
    key = *k;
    return &it->second;
}

std::optional<stateless_flights::routed>
stateless_flights::by_subscription(protocol::message& m, std::string_view source) const {
    auto* meta = meta_of(m.body);
    auto* sub = meta ? meta->if_contains(subscription_key) : nullptr;
    std::string key;
    const entry* e = sub ? find(*sub, key) : nullptr;
    if (!e || !e->listen)
        return std::nullopt;
    *sub = e->client_id;
    return routed{std::move(key), protocol::serialize_preserving(m.body, source), false};
}

std::optional<stateless_flights::routed> stateless_flights::route(protocol::message m,
                                                                  std::string_view source) {
    std::string key;
    if (m.kind == message_kind::response) {
        auto* e = find(m.id, key);
        if (!e)
            return std::nullopt;
        if (e->lists_tools)
            tools_.learn(m.body);
        m.body["id"] = e->client_id;
        return routed{std::move(key), protocol::serialize_preserving(m.body, source), true};
    }
    if (m.kind != message_kind::notification)
        return std::nullopt;
    if (auto r = by_subscription(m, source))
        return r;
    auto* params = params_of(m.body);
    if (m.method == "notifications/progress" || m.method == "notifications/cancelled") {
        bool progress = m.method == "notifications/progress";
        auto* named =
            params ? params->if_contains(progress ? "progressToken" : "requestId") : nullptr;
        auto* e = named ? find(*named, key) : nullptr;
        if (!e || (progress ? !e->progress_token || !e->streams : !e->listen))
            return std::nullopt;
        *named = progress ? *e->progress_token : e->client_id;
        return routed{std::move(key), protocol::serialize_preserving(m.body, source), false};
    }
    if (m.method != "notifications/message")
        return std::nullopt;
    // The map is ordered by rewritten id as text; the oldest is the smallest number.
    const std::pair<const std::string, entry>* oldest = nullptr;
    for (const auto& kv : by_key_)
        if (kv.second.wants_log && kv.second.streams && !kv.second.listen &&
            (!oldest || std::stoll(kv.first) < std::stoll(oldest->first)))
            oldest = &kv;
    if (!oldest)
        return std::nullopt;
    return routed{oldest->first, protocol::serialize_preserving(m.body, source), false};
}

std::string stateless_flights::cancel_line(const std::string& key, std::string_view reason) {
    json::value why(reason);
    return json::serialize(protocol::make_cancelled(std::stoll(key), &why));
}

bool restart_budget::take(clock::time_point now) {
    while (!starts_.empty() && now - starts_.front() >= window_)
        starts_.pop_front();
    if (starts_.size() >= max_)
        return false;
    starts_.push_back(now);
    return true;
}

restart_budget::clock::time_point restart_budget::next_possible(clock::time_point now) const {
    if (starts_.size() < max_)
        return now;
    return std::max(now, starts_[starts_.size() - max_] + window_);
}

} // namespace gate::shim
