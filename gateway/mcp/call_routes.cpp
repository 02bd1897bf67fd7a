// Names resolve against the immutable snapshot on the io thread; only resource ownership,
// which the router learns from lists, needs the actor.
#include "gateway/mcp/call_routes.hpp"

#include "gateway/pipeline/answers.hpp"

namespace gate::transport {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

pipeline::routing settle_route(std::variant<route, route_error> outcome, const json::value& id,
                               request_context& rec) {
    if (auto* err = std::get_if<route_error>(&outcome)) {
        if (!err->name.empty())
            rec.name = err->name;
        return refusal_with(rec, id, err->error, err->message);
    }
    return std::move(std::get<route>(outcome));
}

} // namespace

std::optional<pipeline::routing> call_routes::by_name(const std::string& method,
                                                      const json::value& id, json::object& params,
                                                      request_context& rec) {
    auto named = resolve_by_name(*rec.view->snap, method, params);
    if (!named)
        return std::nullopt;
    return settle_route(std::move(*named), id, rec);
}

asio::awaitable<pipeline::routing> call_routes::named(const std::string& method,
                                                      const json::value& id, json::object params,
                                                      request_context& rec) {
    if (auto routed_by_name = by_name(method, id, params, rec))
        co_return std::move(*routed_by_name);
    std::optional<routed> r;
    for (int attempt = 0;; ++attempt) {
        r = co_await resolver_.resolve(rec, method, params);
        if (!r)
            co_return refusal(rec, id, gateway_error::internal_error, {"router unavailable"});
        auto* err = std::get_if<route_error>(&r->outcome);
        if (!err || !err->needs_resource_lists || attempt > 0)
            break;
        // The owner of a URI is learnt from the lists: fetch them once, then route again.
        co_await learn_resources(rec);
    }
    co_return settle_route(std::move(r->outcome), id, rec);
}

asio::awaitable<void> call_routes::learn_resources(request_context& rec) {
    // As gate's own lists (every profile's URIs), with the caller's credential where an
    // upstream takes it.
    request_context side;
    side.view = rec.view;
    side.profile = protocol::full_profile;
    side.caller = rec.caller;
    side.authorization = rec.authorization;
    side.session = rec.session;
    side.modern = rec.modern;
    side.modern_capabilities = rec.modern_capabilities;
    co_await lists_.federated(protocol::list_kind::resources, nullptr, {}, side);
    co_await lists_.federated(protocol::list_kind::resource_templates, nullptr, {}, side);
    rec.upstream_calls += side.upstream_calls;
}

} // namespace gate::transport
