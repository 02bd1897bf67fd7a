// A principal's own connections (user_accounts.hpp): listed without a token, and disconnected
// here and in the fleet's store. Answered after stages 2 and 3 (the route table's view door),
// so the caller is the verified principal, never a name in the request.
#include "gateway/accounts/user_accounts.hpp"
#include "protocol/utc_timestamp.hpp"

#include <boost/json/serialize.hpp>

namespace gate::gateway::accounts {

namespace http = boost::beast::http;
namespace json = boost::json;

transport::http_reply connections_refusal(http::status status, std::string why) {
    auto reply = transport::http_reply::json(
        status, json::serialize(json::object{{"error", std::move(why)}}));
    reply.headers.emplace_back("Cache-Control", "no-store");
    return reply;
}

json::object connection_json(const connection_view& c) {
    json::object o{{"upstream", c.upstream},
                   {"scope", c.scope},
                   {"connectedAt", protocol::utc_timestamp(c.connected_at)},
                   {"refreshable", c.refreshable}};
    o["expiresAt"] = c.expires_at == wall_clock::time_point::max()
                         ? json::value(nullptr)
                         : json::value(protocol::utc_timestamp(c.expires_at));
    return o;
}

transport::http_reply user_accounts::connections_of(const policy::caller_ref& caller) const {
    if (!caller)
        return connections_refusal(http::status::forbidden,
                                   "connections belong to a verified caller");
    json::array out;
    for (const auto& c : vault_.connections(caller->issuer + '\n' + caller->subject))
        out.push_back(connection_json(c));
    auto reply = transport::http_reply::json(
        http::status::ok, json::serialize(json::object{{"connections", std::move(out)}}));
    reply.headers.emplace_back("Cache-Control", "no-store");
    return reply;
}

boost::asio::awaitable<transport::http_reply>
user_accounts::disconnect(const policy::caller_ref& caller, std::string_view upstream) {
    if (!caller)
        co_return connections_refusal(http::status::forbidden,
                                      "connections belong to a verified caller");
    if (!upstreams_.contains(upstream)) // nothing made of the path reaches the store
        co_return connections_refusal(http::status::not_found,
                                      "no user-account upstream has that id");
    auto principal = caller->issuer + '\n' + caller->subject;
    std::string id(upstream);
    // One another instance connected is read from the fleet's store first: its grant is
    // revoked at the server too.
    bool held =
        vault_.find(id, principal, wall_clock::now()).what != account_vault::standing::none ||
        co_await adopt(id, principal) == store_read::adopted;
    forget(id, principal, at_server::revoked); // in the fleet's store and memories too
    if (!held)
        co_return connections_refusal(http::status::not_found,
                                      "no account of this caller is connected at that upstream");
    told("disconnected", id, principal);
    co_return transport::http_reply::empty(http::status::no_content);
}

transport::http_reply user_accounts::client_metadata() const {
    if (client_metadata_url_.empty())
        return connections_refusal(http::status::not_found,
                                   "gate has no client metadata document: server.publicUrl is "
                                   "not https and server.clientMetadataUrl is not set");
    json::object doc{{"client_id", client_metadata_url_},
                     {"client_name", "gate"},
                     {"redirect_uris", json::array{json::value(redirect_uri())}},
                     {"grant_types", json::array{"authorization_code", "refresh_token"}},
                     {"response_types", json::array{"code"}},
                     {"token_endpoint_auth_method", "none"},
                     {"application_type", "web"}};
    auto reply = transport::http_reply::json(http::status::ok, json::serialize(doc));
    reply.headers.emplace_back("Cache-Control", "public, max-age=3600");
    return reply;
}

} // namespace gate::gateway::accounts
