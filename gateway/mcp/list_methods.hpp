// Federated lists over the few services they need: the plan the router makes, the pages fetched
// from the upstreams it names (concurrently, each admitted and counted), and the page cut and
// sealed from what they answered.
#pragma once

#include "actors/federation/federation.hpp"
#include "gateway/mcp/list_sharing.hpp"
#include "gateway/mcp/tool_selections.hpp"
#include "gateway/operations/method_counts.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "protocol/list_kind.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::gateway {

// Whose list cursors a request may use (the principal; an anonymous caller's session).
std::uint64_t cursor_owner_key(const request_context& rec);

// The JSON-RPC answer for a page the router cut (or refused); counts the items served.
boost::json::object
list_response(std::optional<std::variant<actors::list_answer, actors::route_error>> answer,
              const boost::json::value& id, request_context& rec);

// The routers' side of a list (actors/federation): router_line.
class list_router {
public:
    using list_page = std::optional<std::variant<actors::list_answer, actors::route_error>>;

    // The router's plan of a list on the request's snapshot, for the caller's profile;
    // nullopt: no plan.
    virtual boost::asio::awaitable<std::optional<actors::list_plan>> plan(protocol::list_kind kind,
                                                                          request_context& ctx) = 0;
    // The router's page of the completed list; with `searching`, of gate's tools and the
    // session's selection (tool search).
    virtual boost::asio::awaitable<list_page>
    complete(protocol::list_kind kind, const actors::list_plan& plan,
             std::vector<actors::fetched_list> fetched, std::optional<std::string> cursor,
             request_context& ctx, std::shared_ptr<const actors::tool_listing> searching) = 0;
    // The completed tools list searched for `query` (at most `limit`), or with `names` the
    // tools so named, among those the caller may call; nullopt: no router.
    virtual boost::asio::awaitable<std::optional<actors::found_tools>>
    query(const actors::list_plan& plan, std::vector<actors::fetched_list> fetched,
          std::string query, std::size_t limit, std::optional<std::vector<std::string>> names,
          request_context& ctx) = 0;

protected:
    ~list_router() = default;
};

// One upstream's list: upstream_calls.
class list_fetcher {
public:
    using ticket = std::shared_ptr<upstream_client::guard_ticket>;

    // One upstream's complete list for `profile` (on the caller's bridged session where the
    // upstream takes the caller's credential), admitted by `admitted` (null: by the client
    // itself), each item's text as the upstream wrote it in `written`.
    virtual boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetch(protocol::list_kind kind, protocol::client_profile profile, std::size_t upstream,
          std::string traceparent, ticket admitted, request_context& ctx,
          std::vector<std::string>& written) = 0;

protected:
    ~list_fetcher() = default;
};

// What the list methods are given, each part by its owner; fakes in
// tests/unit/list_methods_test.cpp.
struct list_services {
    list_router& router;
    list_fetcher& fetcher;
    list_sharing& sharing; // the fleet's shared lists
    upstream_counts& counts;
    tool_selections& selections; // the sessions' (gate_select_tools)
};

// Stages 7 and 8 fetch and complete lists through it (pipeline::list_stage_services).
class list_methods final : public pipeline::list_stage_services {
public:
    using ticket = list_fetcher::ticket;
    explicit list_methods(list_services services) : services_(services) {}

    // Stage 4 of a list (and gate's own fetches): which upstreams to ask, with what the
    // fleet's shared cache holds taken out of its fetches.
    boost::asio::awaitable<std::optional<actors::list_plan>> plan(protocol::list_kind kind,
                                                                  request_context& rec);
    // Stage 7: the planned fetches, concurrently. `tickets`: one admission per planned
    // upstream (null: refused, left out); empty: each fetch admits itself.
    boost::asio::awaitable<std::vector<actors::fetched_list>>
    fetch_lists(protocol::list_kind kind, const actors::list_plan& plan,
                std::vector<ticket> tickets, request_context& rec) override;
    // Stage 8: the page the client's cursor asks for, or the refusal (every upstream down, a
    // cursor that is not a string).
    boost::asio::awaitable<boost::json::object>
    complete_list(protocol::list_kind kind, const actors::list_plan& plan,
                  std::vector<actors::fetched_list> fetched, const boost::json::value& id,
                  const boost::json::object& params, request_context& rec) override;
    // A call of gate's own tools: its arguments read (a tool error says what is wrong), the
    // tools list completed and searched or the selection made and kept with the session.
    boost::asio::awaitable<boost::json::object>
    answer_gate_tool(protocol::gate_tool tool, const actors::list_plan& plan,
                     std::vector<actors::fetched_list> fetched, const boost::json::value& id,
                     const boost::json::object& params, request_context& rec) override;
    // One upstream's complete list for `rec`'s caller, fetched now as its list request would
    // fetch it (with its credential where the upstream takes the caller's, counted, names
    // clients would refuse left out), neither cached nor shared; or why not. The console's
    // catalog of an upstream that takes each caller's credential (docs/operations.md).
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    listing(protocol::list_kind kind, protocol::client_profile profile, std::size_t upstream,
            request_context& rec);
    // Gate's own merged list (the owner of a URI is learnt from the resource lists).
    boost::asio::awaitable<boost::json::object> federated(protocol::list_kind kind,
                                                          const boost::json::value& id,
                                                          const boost::json::object& params,
                                                          request_context& rec);

private:
    // What a tools/list lists where tool search is on for the caller; null where it is not.
    std::shared_ptr<const actors::tool_listing> tool_listing_of(protocol::list_kind kind,
                                                                const request_context& rec);
    // Tools whose names clients would refuse, left out of a fetched list (and their texts).
    void drop_unusable_tools(boost::json::array& items, std::vector<std::string>& written,
                             std::size_t upstream, const request_context& rec);
    boost::asio::awaitable<actors::fetched_list> fetch_one(protocol::list_kind kind,
                                                           const actors::list_plan& plan,
                                                           std::size_t upstream, ticket admitted,
                                                           request_context& rec);
    // fetch_one's fetch: counted, traced, the unusable tools left out.
    boost::asio::awaitable<std::variant<boost::json::array, upstream_failure>>
    fetched(protocol::list_kind kind, protocol::client_profile profile, std::size_t upstream,
            ticket admitted, request_context& rec, std::vector<std::string>& written);

    list_services services_;
};

} // namespace gate::gateway
