#include "gateway/mcp/parked_inputs.hpp"

#include "protocol/gateway_error.hpp"
#include "protocol/json_splice.hpp"
#include "protocol/modern_request.hpp"
#include "protocol/random_id.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using protocol::gateway_error;

std::string parked_request_key(const protocol::message& msg) {
    std::string key = msg.method;
    if (auto name = protocol::named_value(msg.method, msg.params()); !name.empty())
        key.append("\n").append(name);
    return key;
}

json::value parked_arguments(const protocol::message& msg) {
    const auto* params = msg.params();
    const auto* arguments = params ? params->if_contains("arguments") : nullptr;
    return arguments ? *arguments : json::value();
}

namespace {
const json::string* parked_string_at(const json::object& o, std::string_view name) {
    auto* v = o.if_contains(name);
    return v ? v->if_string() : nullptr;
}
} // namespace

std::string encode_parked(const parked_record& r) {
    json::object keys, asked;
    for (const auto& [k, id] : r.keys)
        keys[k] = id;
    for (const auto& [k, text] : r.asked)
        asked[k] = text; // the question as the upstream wrote it, kept as text
    return json::serialize(json::object{{"owner", r.owner},
                                        {"call", r.call},
                                        {"principal", r.principal},
                                        {"request", r.request},
                                        {"arguments", r.arguments},
                                        {"upstream", r.upstream},
                                        {"session",
                                         {{"id", r.at.id},
                                          {"version", r.at.protocol_version},
                                          {"endpoint", static_cast<std::int64_t>(r.at.endpoint)}}},
                                        {"keys", std::move(keys)},
                                        {"asked", std::move(asked)}});
}

std::optional<parked_record> decode_parked(std::string_view text) {
    boost::system::error_code ec;
    auto parsed = json::parse(text, ec);
    const auto* o = ec ? nullptr : parsed.if_object();
    if (!o)
        return std::nullopt;
    const auto* session = o->if_contains("session");
    const auto* at = session ? session->if_object() : nullptr;
    const auto* keys = o->if_contains("keys");
    const auto* asked = o->if_contains("asked");
    const auto* arguments = o->if_contains("arguments");
    const auto* owner = parked_string_at(*o, "owner");
    const auto* call = parked_string_at(*o, "call");
    const auto* principal = parked_string_at(*o, "principal");
    const auto* request = parked_string_at(*o, "request");
    const auto* upstream = parked_string_at(*o, "upstream");
    if (!at || !keys || !keys->is_object() || !asked || !asked->is_object() || !arguments ||
        !owner || !call || !principal || !request || !upstream)
        return std::nullopt;
    const auto* id = parked_string_at(*at, "id");
    const auto* version = parked_string_at(*at, "version");
    const auto* endpoint = at->if_contains("endpoint");
    if (!id || !version || !endpoint || !endpoint->is_int64() || endpoint->get_int64() < 0)
        return std::nullopt;
    parked_record r{
        std::string(*owner),
        std::string(*call),
        std::string(*principal),
        std::string(*request),
        *arguments,
        std::string(*upstream),
        {std::string(*id), std::string(*version), static_cast<std::size_t>(endpoint->get_int64())},
        {},
        {}};
    for (const auto& [k, v] : keys->get_object())
        r.keys[std::string(k)] = v;
    for (const auto& [k, v] : asked->get_object()) {
        if (!v.is_string())
            return std::nullopt;
        r.asked[std::string(k)] = std::string(v.get_string());
    }
    return r;
}

std::string encode_parked_output(const parked_output& o) {
    json::array events;
    for (const auto& e : o.events)
        events.emplace_back(e);
    return json::serialize(
        json::object{{"events", std::move(events)}, {"final", o.final}, {"status", o.status}});
}

std::optional<parked_output> decode_parked_output(std::string_view text) {
    boost::system::error_code ec;
    auto parsed = json::parse(text, ec);
    const auto* o = ec ? nullptr : parsed.if_object();
    const auto* events = o ? o->if_contains("events") : nullptr;
    const auto* final = o ? parked_string_at(*o, "final") : nullptr;
    const auto* status = o ? o->if_contains("status") : nullptr;
    if (!events || !events->is_array() || !final || !status || !status->is_int64() ||
        status->get_int64() < 100 || status->get_int64() > 599)
        return std::nullopt;
    parked_output out{{}, std::string(*final), static_cast<unsigned>(status->get_int64())};
    for (const auto& e : events->get_array()) {
        if (!e.is_string())
            return std::nullopt;
        out.events.emplace_back(e.get_string());
    }
    return out;
}

std::shared_ptr<answer_slot> parked_inputs::expect(const std::string& minted, std::string session,
                                                   asio::any_io_executor ex) {
    auto slot = std::make_shared<answer_slot>(std::move(ex));
    slot->session = std::move(session);
    awaiting_[minted] = slot;
    return slot;
}

void parked_inputs::forget(const std::string& minted) {
    awaiting_.erase(minted);
}

bool parked_inputs::answer(const std::string& session, const protocol::message& msg,
                           std::string_view body) {
    if (!msg.id.is_string())
        return false;
    auto it = awaiting_.find(std::string(msg.id.get_string()));
    if (it == awaiting_.end() || it->second->session != session)
        return false;
    auto slot = it->second;
    awaiting_.erase(it);
    if (auto* r = msg.body.if_contains("result"); r && r->is_object()) {
        auto written = protocol::find_top_level_member(body, "result");
        slot->result = protocol::sourced_object{
            r->get_object(),
            written ? std::string(body.substr(written->begin, written->end - written->begin))
                    : std::string()};
    }
    slot->answered = true;
    slot->wake.cancel();
    return true;
}

std::string parked_inputs::park(std::shared_ptr<input_parking> park,
                                std::chrono::steady_clock::time_point now) {
    auto token = protocol::random_id_in(place_);
    park->expires = now + lifetime;
    parked_[token] = std::move(park);
    return token;
}

parked_inputs::claim parked_inputs::resume(const std::string& token, const protocol::message& retry,
                                           const std::string& principal) {
    auto it = parked_.find(token);
    if (it == parked_.end())
        return {}; // not ours: the upstream's own state, forwarded with the retry
    // Both refusals leave the call parked for its own client's retry.
    const auto& p = *it->second;
    if (auto what = check(p.principal, p.request, p.arguments, retry, principal);
        what != claim::kind::resumed)
        return {what, nullptr};
    claim c{claim::kind::resumed, std::move(it->second)};
    parked_.erase(it);
    return c;
}

parked_inputs::claim::kind parked_inputs::check(const std::string& parked_principal,
                                                const std::string& request,
                                                const json::value& arguments,
                                                const protocol::message& retry,
                                                const std::string& principal) {
    if (parked_principal != principal)
        return claim::kind::other_principal;
    if (request != parked_request_key(retry) || arguments != parked_arguments(retry))
        return claim::kind::other_request; // a retry resumes only its own call
    return claim::kind::resumed;
}

bool parked_inputs::holds(const std::string& token,
                          const std::shared_ptr<input_parking>& park) const {
    auto it = parked_.find(token);
    return it != parked_.end() && it->second == park;
}

bool parked_inputs::expire(const std::string& token, const std::shared_ptr<input_parking>& park) {
    auto it = parked_.find(token);
    if (it == parked_.end() || it->second != park)
        return false; // resumed in time
    parked_.erase(it);
    return true;
}

std::string parked_inputs::ask(input_parking& park) {
    // Each request as the upstream wrote it, numbers and all.
    for (auto& r : park.requests) {
        auto key = "input-" + std::to_string(++park.next_key);
        auto& asked = r.body();
        park.keys[key] = asked["id"];
        json::object embedded{{"method", asked["method"]}};
        if (auto* p = asked.if_contains("params"))
            embedded["params"] = *p;
        protocol::write_preserving(embedded, r.raw(), park.asked[key]);
    }
    park.requests.clear();
    park.ask_again = false;
    // What is asked: every question not answered yet, those a retry left out again.
    std::string input_requests;
    for (const auto& [key, text] : park.asked) {
        input_requests += input_requests.empty() ? "{" : ",";
        input_requests += json::serialize(json::string_view(key));
        input_requests += ':';
        input_requests += text;
    }
    input_requests += input_requests.empty() ? "{}" : "}";
    return input_requests;
}

json::object parked_inputs::answer_of(const std::string& key, const json::value& upstream_id,
                                      const json::object* responses, std::string_view source,
                                      std::string& written) {
    json::object answer{{"jsonrpc", "2.0"}, {"id", upstream_id}};
    auto* got = responses ? responses->if_contains(key) : nullptr;
    // The answer's result as the client wrote it.
    written.clear();
    if (auto span = protocol::find_member(source, {key}))
        written = R"({"result":)" +
                  std::string(source.substr(span->begin, span->end - span->begin)) + "}";
    if (got && got->is_object()) {
        answer["result"] = *got;
        return answer;
    }
    if (responses)
        return protocol::make_gateway_error(
            gateway_error::input_missing, upstream_id,
            protocol::gateway_error_text(gateway_error::input_missing, {key}));
    return protocol::make_gateway_error(
        gateway_error::input_not_retried, upstream_id,
        protocol::gateway_error_text(gateway_error::input_not_retried,
                                     {std::to_string(lifetime.count())}));
}

std::map<std::string, json::value> parked_inputs::answered_now(input_parking& park,
                                                               const json::object* responses) {
    std::map<std::string, json::value> answering;
    for (auto it = park.keys.begin(); it != park.keys.end();) {
        if (responses && !responses->contains(it->first)) {
            ++it; // left out: asked again
            continue;
        }
        park.asked.erase(it->first);
        answering.insert(park.keys.extract(it++));
    }
    park.ask_again = !park.keys.empty();
    return answering;
}

asio::awaitable<void> parked_inputs::answer_upstream(input_parking& park,
                                                     const json::object* responses,
                                                     std::string source) {
    for (auto& [key, upstream_id] : answered_now(park, responses)) {
        std::string written;
        auto answer = answer_of(key, upstream_id, responses, source, written);
        if (park.at) // a call another instance runs: to the upstream session that asked
            co_await park.client->sender().deliver_to(*park.at, std::move(answer),
                                                      std::move(written));
        else
            co_await park.client->sender().deliver(park.bridge, std::move(answer),
                                                   std::move(written));
    }
}

} // namespace gate::gateway
