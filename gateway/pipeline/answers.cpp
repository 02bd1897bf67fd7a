#include "gateway/pipeline/answers.hpp"

#include "protocol/json_rpc.hpp"

#include <boost/json/serialize.hpp>

namespace gate::gateway {

namespace json = boost::json;
using protocol::answer_form;

json::object error_object(gateway_error e, const json::value& id,
                          std::initializer_list<std::string_view> args, protocol::client_era era) {
    return protocol::make_gateway_error(e, id, protocol::gateway_error_text(e, args), era);
}

transport::http_reply error_reply(error_answer a) {
    const auto& row = protocol::describe(a.error);
    auto status = static_cast<boost::beast::http::status>(row.http_status);
    switch (row.form) {
    case answer_form::json_rpc: {
        auto body = protocol::make_gateway_error(a.error, a.id, a.text, a.era);
        if (!a.data.empty())
            body["error"].as_object()["data"] = std::move(a.data);
        return transport::http_reply::json(status, json::serialize(body));
    }
    case answer_form::plain:
        return transport::http_reply::json(status,
                                           json::serialize(json::object{{"error", a.text}}));
    case answer_form::described:
        return transport::http_reply::json(
            status, json::serialize(json::object{{"error", a.code.empty() ? row.name : a.code},
                                                 {"error_description", a.text}}));
    }
    return transport::http_reply::json(status, json::serialize(json::object{{"error", a.text}}));
}

const std::string& refuse(request_context& ctx, error_answer a) {
    const auto& row = protocol::describe(a.error);
    ctx.audit.outcome = row.audit_outcome;
    a.id = ctx.message.id;
    if (ctx.client.modern)
        a.era = protocol::client_era::modern;
    if (row.form == answer_form::json_rpc && row.http_status == 200) {
        ctx.answer.response = protocol::make_gateway_error(a.error, a.id, a.text, a.era);
        if (!a.data.empty())
            (*ctx.answer.response)["error"].as_object()["data"] = std::move(a.data);
        ctx.answer.verbatim.clear();
    } else {
        if (row.form != answer_form::json_rpc) {
            // Refused before MCP handling: no method of its own, counted as a rejection.
            ctx.method = "http";
            if (!row.metric_label.empty())
                ctx.answer.rejection = std::string(row.metric_label);
        }
        ctx.answer.refusal_reply = error_reply(a);
    }
    ctx.audit.error = std::move(a.text);
    return *ctx.audit.error;
}

json::object refusal_with(request_context& ctx, const json::value& id, gateway_error e,
                          std::string text) {
    ctx.audit.outcome = protocol::describe(e).audit_outcome;
    auto answer = protocol::make_gateway_error(e, id, text, era_of(ctx));
    ctx.audit.error = std::move(text);
    return answer;
}

} // namespace gate::gateway
