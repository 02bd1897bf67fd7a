// The entry's read step: a POST on the MCP endpoint read as one MCP message, after stage 2 (an
// unauthenticated caller learns nothing of how its message would have been taken) and before
// stage 3 (which counts requests only). Each refusal is the error table's row, audited once
// by the chain's exit: 415 and 406 as HTTP refusals, a body that is not JSON or not one
// JSON-RPC message under method `http`.
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/entry_steps.hpp"
#include "protocol/json_splice.hpp"
#include "protocol/modern_request.hpp"

#include <boost/json/parse.hpp>

namespace gate::gateway::pipeline {

namespace {

namespace json = boost::json;

// The text of a request's params, and the little that follows them in its body, found by
// its spelling: the guide they are written from (protocol/json_preserve). Empty when there is
// no such spelling.
std::string_view params_text(std::string_view body) {
    auto start = protocol::find_spelled_member(body, "params");
    return start ? body.substr(*start) : std::string_view();
}

class read final : public entry_step {
public:
    explicit read(message_tap* tap) : tap_(tap) {}

    step run(request_context& ctx, arrival& a) override {
        // Header values are read in place (views into the request, which outlives the call).
        const auto& req = a.req;
        if (!header(req, "Content-Type").value_or("").starts_with("application/json")) {
            refuse(ctx, gateway_error::unsupported_media_type);
            return verdict::answered;
        }
        if (!transport::accepts(header(req, "Accept").value_or(""), "application/json")) {
            refuse(ctx, gateway_error::not_acceptable);
            return verdict::answered;
        }
        boost::system::error_code jec;
        auto value = json::parse(req.body(), jec);
        if (jec) {
            ctx.method = "http";
            refuse(ctx, gateway_error::parse_error, {jec.message()});
            return verdict::answered;
        }
        if (tap_)
            tap_->hear(req, ctx);
        auto classified = protocol::classify(std::move(value));
        if (auto* bad = std::get_if<protocol::rpc_error>(&classified)) {
            ctx.method = "http";
            ctx.message.id = bad->id;
            refuse(ctx, gateway_error::invalid_request, {bad->message});
            return verdict::answered;
        }
        auto& msg = a.msg.emplace(std::move(std::get<protocol::message>(classified)));
        ctx.method = msg.kind == protocol::message_kind::response ? "response" : msg.method;
        ctx.message.id = msg.id;
        if (msg.kind == protocol::message_kind::request)
            ctx.message.params_source = params_text(req.body());
        a.modern = is_modern_request(req, msg);
        return verdict::proceed;
    }

private:
    message_tap* tap_;
};

} // namespace

bool is_modern_request(const transport::http_request& req, const protocol::message& msg) {
    if (header_value(req, "MCP-Protocol-Version") == protocol::modern_protocol_version)
        return true;
    return msg.kind == protocol::message_kind::request &&
           protocol::claimed_version(msg.params()).has_value() && msg.method != "initialize";
}

std::unique_ptr<entry_step> make_read(message_tap* tap) {
    return std::make_unique<read>(tap);
}

} // namespace gate::gateway::pipeline
