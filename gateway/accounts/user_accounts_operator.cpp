// The operator's side of the users' connections (user_accounts.hpp): every principal's
// connections listed, and an upstream's, a principal's or one connection revoked across the
// fleet. Answered after stages 2 and 3 (the route table's view door); only a caller holding
// server.vault.operatorScope is served, and without that field nobody is.
#include "gateway/accounts/http_query.hpp"
#include "gateway/accounts/user_accounts.hpp"
#include "policy/subjects_select.hpp"
#include "protocol/param_headers.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>

namespace gate::gateway::accounts {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

constexpr std::size_t listing_bound = 1000;

// Why `caller` may not act as the operator; nullopt when it may.
std::optional<transport::http_reply> not_an_operator(const policy::caller_ref& caller,
                                                     const std::optional<std::string>& scope) {
    if (!scope)
        return connections_refusal(http::status::forbidden,
                                   "no operator may list or revoke users' connections: "
                                   "server.vault.operatorScope is not configured");
    auto held = caller ? policy::held_scopes(*caller) : std::vector<std::string>();
    if (std::find(held.begin(), held.end(), *scope) == held.end())
        return connections_refusal(http::status::forbidden,
                                   "listing or revoking other users' connections needs the scope " +
                                       *scope);
    return std::nullopt;
}

} // namespace

transport::http_reply
user_accounts::everyones_connections(const policy::caller_ref& caller,
                                     const transport::http_request& req) const {
    if (auto refused = not_an_operator(caller, operator_scope_))
        return std::move(*refused);
    auto q = query_of(req);
    if (auto bad = unknown_key(q, {"upstream"}))
        return connections_refusal(http::status::bad_request, "unknown query parameter \"" +
                                                                  protocol::printable(*bad, 60) +
                                                                  "\" (upstream)");
    auto upstream = query_value(q, "upstream");
    json::array out;
    bool truncated = false;
    for (const auto& c : vault_.connections("")) {
        if (upstream && c.upstream != *upstream)
            continue;
        if (out.size() == listing_bound) {
            truncated = true;
            break;
        }
        auto cut = c.principal.find('\n');
        auto o = connection_json(c);
        o["issuer"] = c.principal.substr(0, cut);
        o["subject"] = cut == std::string::npos ? "" : c.principal.substr(cut + 1);
        out.push_back(std::move(o));
    }
    auto reply = transport::http_reply::json(
        http::status::ok, json::serialize(json::object{{"connections", std::move(out)},
                                                       {"truncated", truncated},
                                                       {"held", "this instance's memory"}}));
    reply.headers.emplace_back("Cache-Control", "no-store");
    return reply;
}

asio::awaitable<transport::http_reply> user_accounts::revoke(const policy::caller_ref& caller,
                                                             const transport::http_request& req) {
    if (auto refused = not_an_operator(caller, operator_scope_))
        co_return std::move(*refused);
    auto q = query_of(req);
    if (auto bad = unknown_key(q, {"upstream", "issuer", "subject"}))
        co_return connections_refusal(http::status::bad_request,
                                      "unknown query parameter \"" + protocol::printable(*bad, 60) +
                                          "\" (upstream, issuer, subject)");
    auto upstream = query_value(q, "upstream");
    auto issuer = query_value(q, "issuer");
    auto subject = query_value(q, "subject");
    if (issuer.has_value() != subject.has_value() ||
        (issuer && (issuer->empty() || subject->empty())))
        co_return connections_refusal(http::status::bad_request,
                                      "issuer and subject name a principal together; give both, "
                                      "each once and not empty, or neither");
    if (!upstream && !issuer)
        co_return connections_refusal(http::status::bad_request,
                                      "name what to revoke: an upstream, a principal (issuer and "
                                      "subject), or both");
    if (upstream && !upstreams_.contains(*upstream))
        co_return connections_refusal(http::status::bad_request,
                                      "no user-account upstream has the id \"" +
                                          protocol::printable(*upstream, 60) + "\"");
    auto principal = issuer ? *issuer + '\n' + *subject : std::string();
    // One connection another instance made is read from the fleet's store first, so its grant
    // is revoked at the server too (an instance revokes those it holds when it hears).
    if (upstream && issuer &&
        vault_.find(*upstream, principal, wall_clock::now()).what == account_vault::standing::none)
        co_await adopt(*upstream, principal);
    auto here = co_await forget_everywhere(upstream.value_or(""),
                                           issuer ? account_vault::digest_of(principal) : "");
    told("revoked", upstream.value_or(""), principal, {},
         caller->subject + " at " + caller->issuer);
    auto reply = transport::http_reply::json(
        http::status::ok,
        json::serialize(json::object{{"forgottenHere", here}, {"fleet", store_ != nullptr}}));
    reply.headers.emplace_back("Cache-Control", "no-store");
    co_return reply;
}

} // namespace gate::gateway::accounts
