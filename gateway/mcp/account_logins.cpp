#include "gateway/mcp/account_logins.hpp"

#include "gateway/mcp/upstream_calls.hpp"
#include "gateway/pipeline/answers.hpp"
#include "protocol/oauth/metadata.hpp"

#include <boost/json/serialize.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

bool declares_url_elicitation(const json::object& capabilities) {
    const auto* e = capabilities.if_contains("elicitation");
    return e && e->is_object() && e->get_object().contains("url");
}

json::object url_elicitation(const accounts::login_offer& o) {
    return {{"mode", "url"}, {"elicitationId", o.id}, {"url", o.url}, {"message", o.message}};
}

constexpr std::string_view login_state_prefix = "gate.login:";
constexpr std::string_view login_input_key = "gate.login";

} // namespace

login_retry take_login_retry(protocol::message& msg) {
    auto* params = msg.body.if_contains("params");
    auto* p = params ? params->if_object() : nullptr;
    auto* state = p ? p->if_contains("requestState") : nullptr;
    if (!state || !state->is_string() || !state->get_string().starts_with(login_state_prefix))
        return {};
    std::string_view written = state->get_string();
    login_retry retry{std::string(written.substr(login_state_prefix.size())), false};
    // The user's answer to the URL elicitation: declined or cancelled, the call is not held.
    const auto* responses = p->if_contains("inputResponses");
    const auto* mine = responses && responses->is_object()
                           ? responses->get_object().if_contains(login_input_key)
                           : nullptr;
    const auto* action =
        mine && mine->is_object() ? mine->get_object().if_contains("action") : nullptr;
    retry.declined = action && action->is_string() && action->get_string() != "accept";
    p->erase("requestState");
    p->erase("inputResponses");
    return retry;
}

bool account_logins::holds_token(request_context& rec, std::size_t upstream) {
    const auto& caller = rec.who.caller_token;
    return caller && accounts_->line_now(rec.view->config(upstream), *caller);
}

asio::awaitable<account_logins::outcome> account_logins::send_to_login(request_context& rec,
                                                                       std::size_t upstream,
                                                                       const upstream_failure& f,
                                                                       bool can_send_again) {
    const auto& caller = rec.who.caller_token;
    if (!caller)
        co_return outcome::unchanged;
    const auto& u = rec.view->config(upstream);
    std::string scope;
    if (f.status == 401 || f.status == 403) // a challenge naming a scope: asked for too
        scope = protocol::oauth::read_bearer_challenge(f.challenge).scope;
    auto offered =
        co_await accounts_->offer_login(u, *caller, json::serialize(rec.message.id), scope);
    if (auto* why = std::get_if<std::string>(&offered)) {
        refuse(rec, error_answer{
                        gateway_error::upstream_failed,
                        protocol::gateway_error_text(gateway_error::upstream_failed, {u.id, *why}),
                        rec.message.id,
                        {},
                        era_of(rec)});
        co_return outcome::answered;
    }
    auto& offer = std::get<accounts::login_offer>(offered);
    bool url_capable = rec.client.modern
                           ? declares_url_elicitation(rec.client.modern_capabilities)
                           : declares_url_elicitation(clients_.capabilities(rec.client.session));
    if (url_capable && rec.client.modern) {
        // The client's retry after it let its user open the link: the call waits for that
        // login (the revision's server "may need to block until the request is fulfilled").
        bool retried = can_send_again && rec.client.login_retry == offer.id;
        if (retried && !rec.client.login_declined &&
            co_await accounts_->finished(offer.id, login_wait))
            co_return outcome::send_again;
        if (!retried || !rec.client.login_declined) {
            rec.answer.response = protocol::make_result(
                rec.message.id,
                json::object{{"resultType", "input_required"},
                             {"inputRequests",
                              json::object{{login_input_key,
                                            json::object{{"method", "elicitation/create"},
                                                         {"params", url_elicitation(offer)}}}}},
                             {"requestState", std::string(login_state_prefix) + offer.id}});
            co_return outcome::answered;
        }
        // Declined or cancelled: the error below, with the link to open later.
    } else if (can_send_again && url_capable && !rec.client.modern && rec.sinks.push_to_client) {
        json::object request{{"method", "elicitation/create"}, {"params", url_elicitation(offer)}};
        auto source = json::serialize(request);
        auto answer =
            co_await input_.ask_client_input(rec, {std::move(request), std::move(source)});
        const auto* action = answer ? answer->value.if_contains("action") : nullptr;
        if (action && action->is_string() && action->get_string() == "accept" &&
            co_await accounts_->finished(offer.id, login_wait)) {
            if (rec.sinks.push_to_client)
                rec.sinks.push_to_client(json::serialize(
                    json::object{{"jsonrpc", "2.0"},
                                 {"method", "notifications/elicitation/complete"},
                                 {"params", json::object{{"elicitationId", offer.id}}}}));
            co_return outcome::send_again;
        }
    }
    // Declined, not finished in time, or a client that cannot be asked: the login goes back
    // with the error, to open and call again.
    refuse(rec, error_answer{
                    gateway_error::account_needed,
                    protocol::gateway_error_text(gateway_error::account_needed, {u.id, offer.url}),
                    rec.message.id,
                    {},
                    era_of(rec),
                    {{"elicitations", json::array{url_elicitation(offer)}}}});
    co_return outcome::answered;
}

} // namespace gate::gateway
