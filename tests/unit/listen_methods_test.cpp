// Listens and the subscriptions gate holds at 2026-07-28 upstreams (gateway/mcp/
// listen_methods.hpp) over a fake of their services, on the rig's federation with up-a served
// by a scripted upstream (tests/unit/upstream_loopback.hpp, on an ephemeral port): a
// subscription the upstream took recorded for the keeper only with an upstream; a URI gate
// holds for the session released on unsubscribe and told, one it does not hold told nothing,
// both answered with an empty result; and a listen whose filter cannot be read refused
// (invalid_params) and audited once, before its stream is touched.
#include "gateway/mcp/listen_methods.hpp"
#include "protocol/gateway_error.hpp"
#include "tests/support/kept_tool_selections.hpp"
#include "tests/support/quiet_bridges.hpp"
#include "tests/support/unchanged_icons.hpp"
#include "tests/unit/stage_rig.hpp"
#include "tests/unit/upstream_loopback.hpp"

#include <boost/json/parse.hpp>
#include <string>
#include <vector>

namespace gate::gateway {
namespace {

namespace json = boost::json;
using protocol::gateway_error;

// Notes what it was told.
struct fake_listen_services final : view_source, pipeline::request_exit, test::quiet_bridges {
    std::vector<std::string> changed; // "<holder> <upstream> <uri> <subscribed>"
    struct audited_listen {
        std::string method;
        std::optional<std::string> error;
        protocol::outcome outcome;
        json::value id;
        std::optional<json::object> response;
    };
    std::vector<audited_listen> audited;

    void subscription_changed(const std::string& holder, const std::string& upstream,
                              const std::string& uri, bool subscribed) override {
        changed.push_back(holder + " " + upstream + " " + uri + " " +
                          (subscribed ? "true" : "false"));
    }
    void conclude(request_context& rec) override {
        audited.push_back(
            {rec.method, rec.audit.error, rec.audit.outcome, rec.message.id, rec.answer.response});
    }
    std::shared_ptr<const federation_view> current_view() const override { return view; }
    std::shared_ptr<const federation_view> view; // none: the paths tested read no view
};

// Routes nothing: the paths tested here do not route.
struct no_routes final : route_resolver, client_profiles {
    int asked = 0;
    boost::asio::awaitable<std::optional<actors::routed>>
    resolve(request_context&, const std::string&, const json::object&) override {
        ++asked;
        co_return std::nullopt;
    }
    protocol::client_profile profile_of(request_context&) override {
        return protocol::full_profile;
    }
};
struct no_lists final : test::kept_tool_selections, list_fetcher, list_sharing, upstream_counts {
    boost::asio::awaitable<void> fill_from_fleet(protocol::list_kind, actors::list_plan&,
                                                 const request_context&) override {
        co_return;
    }
    void drop_shared_lists(const upstream_client&) override {}
    int asked = 0;
    boost::asio::awaitable<std::optional<actors::list_plan>> plan(protocol::list_kind,
                                                                  request_context&) override {
        ++asked;
        co_return std::nullopt;
    }
    boost::asio::awaitable<std::variant<json::array, upstream_failure>>
    fetch(protocol::list_kind, protocol::client_profile, std::size_t, std::string, ticket,
          request_context&, std::vector<std::string>&) override {
        ++asked;
        co_return json::array{};
    }
    void count(const std::string&, std::string_view, double) override { ++asked; }
    void tool_dropped(const std::string&, std::string_view) override {}
    void share_list(protocol::list_kind, protocol::client_profile, const upstream_client&,
                    const json::array&, const std::vector<std::string>&) override {
        ++asked;
    }
    boost::asio::awaitable<list_page>
    complete(protocol::list_kind, const actors::list_plan&, std::vector<actors::fetched_list>,
             std::optional<std::string>, request_context&,
             std::shared_ptr<const actors::tool_listing>) override {
        ++asked;
        co_return std::nullopt;
    }
};

// Knows no task: the paths tested here hold none.
struct no_tasks final : task_records, invocation_charges, task_upstreams, task_pages {
    hook_asker* decision_hook() { return nullptr; }
    boost::asio::awaitable<std::optional<actors::task_owner>> find(const std::string&,
                                                                   std::uint64_t) override {
        co_return actors::task_owner{};
    }
    void pin(const std::string&, std::uint64_t, const std::string&) override {}
    void locate(const std::string&, const std::string&) override {}
    boost::asio::awaitable<std::optional<std::string>> fleet_record(const std::string&) override {
        co_return std::nullopt;
    }
    boost::asio::awaitable<void> put_fleet_record(const std::string&, std::string) override {
        co_return;
    }
    boost::asio::awaitable<std::optional<actors::budget_ledger::exhausted>>
    charge(const request_context&, std::size_t) override {
        co_return std::nullopt;
    }
    boost::asio::awaitable<upstream_reply>
    call_upstream(std::size_t, std::string_view, json::object, request_context&, bool) override {
        co_return upstream_failure{};
    }
    boost::asio::awaitable<std::variant<json::array, upstream_failure>>
    fetch_tasks(std::size_t, request_context&) override {
        co_return json::array{};
    }
    boost::asio::awaitable<list_page> page(request_context&, json::array,
                                           std::optional<std::string>) override {
        co_return std::nullopt;
    }
};

struct listen_methods_rig : test::stage_rig {
    test::loopback_upstream upstream{io};
    fake_listen_services services;
    no_routes resolver;
    no_lists lists_services;
    list_methods lists{
        {lists_services, lists_services, lists_services, lists_services, lists_services}};
    call_routes routes{resolver, resolver, lists};
    listen_hub listens;
    subscription_holds holds;
    no_tasks task_fake;
    test::unchanged_icons icons;
    task_methods tasks{{task_fake, task_fake, task_fake, task_fake, nullptr, icons}};
    listen_methods methods{
        listens, holds, routes, tasks, {services, services, services, nullptr, icons}};

    // up-a is the scripted upstream.
    void SetUp() override {
        auto at = test::upstream_at(upstream.url(), "up-a");
        at.namespace_ = "a";
        doc->upstreams[0] = at;
        load();
        ctx.client.session = "s1";
    }
    void TearDown() override {
        ctx.view->for_each_made([](upstream_client& c) { c.close(); });
        test::settle(io);
    }
    json::object at_a(const std::string& method, const std::string& uri) {
        actors::route target{0, json::object{{"uri", uri}}, uri};
        return test::run(io,
                         methods.subscribe_at_modern_upstream(method, json::value(9), target, ctx));
    }
    static json::object empty_result() {
        return json::object{{"jsonrpc", "2.0"}, {"id", 9}, {"result", json::object{}}};
    }
};

TEST_F(listen_methods_rig, a_record_without_an_upstream_tells_nothing) {
    methods.record_subscription(ctx, "file:///a", true);
    methods.record_subscription(ctx, "file:///a", false);
    EXPECT_TRUE(services.changed.empty());
}

TEST_F(listen_methods_rig, a_record_with_an_upstream_tells_the_keeper) {
    ctx.upstream = "up-b";
    methods.record_subscription(ctx, "file:///a", true);
    methods.record_subscription(ctx, "file:///b", false);
    EXPECT_EQ(services.changed,
              (std::vector<std::string>{"s1 up-b file:///a true", "s1 up-b file:///b false"}));
}

TEST_F(listen_methods_rig, unsubscribing_a_held_uri_releases_it_and_tells_the_keeper) {
    EXPECT_EQ(at_a("resources/subscribe", "file:///a"), empty_result());
    EXPECT_TRUE(holds.holds("s1", "up-a", "file:///a"));
    EXPECT_EQ(services.changed, (std::vector<std::string>{"s1 up-a file:///a true"}));
    EXPECT_EQ(upstream.count("resources/subscribe"), 1u);

    EXPECT_EQ(at_a("resources/unsubscribe", "file:///a"), empty_result());
    EXPECT_FALSE(holds.holds("s1", "up-a", "file:///a"));
    EXPECT_EQ(services.changed,
              (std::vector<std::string>{"s1 up-a file:///a true", "s1 up-a file:///a false"}));
    EXPECT_TRUE(test::run_until(io, [&] { return upstream.count("resources/unsubscribe") == 1; }));
    EXPECT_EQ(ctx.audit.upstream_calls, 2);
    EXPECT_EQ(resolver.asked, 0);
}

TEST_F(listen_methods_rig, unsubscribing_a_uri_not_held_tells_nothing) {
    EXPECT_EQ(at_a("resources/subscribe", "file:///a"), empty_result());
    services.changed.clear();
    EXPECT_EQ(at_a("resources/unsubscribe", "file:///b"), empty_result());
    ctx.client.session = "s2"; // another session's unsubscribe of s1's URI
    EXPECT_EQ(at_a("resources/unsubscribe", "file:///a"), empty_result());
    EXPECT_TRUE(services.changed.empty());
    EXPECT_TRUE(holds.holds("s1", "up-a", "file:///a"));
    EXPECT_EQ(upstream.count("resources/unsubscribe"), 0u);
}

TEST_F(listen_methods_rig, a_listen_with_a_bad_filter_is_refused_and_audited_once) {
    boost::beast::tcp_stream never_opened(io); // the refusal is answered before any stream
    transport::http_request req{boost::beast::http::verb::post, "/mcp", 11};
    protocol::message msg;
    msg.kind = protocol::message_kind::request;
    msg.method = "subscriptions/listen";
    msg.id = 5;
    msg.body = json::object{{"jsonrpc", "2.0"},
                            {"id", 5},
                            {"method", msg.method},
                            {"params", {{"notifications", "all"}}}};
    request_context rec;
    rec.view = ctx.view;
    rec.method = msg.method;
    auto reply = test::run(io, methods.listen(never_opened, req, msg, std::move(rec)));
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, boost::beast::http::status::ok);
    auto body = json::parse(reply->body).as_object();
    EXPECT_EQ(body.at("id"), 5);
    EXPECT_EQ(body.at("error").at("code").to_number<int>(),
              protocol::describe(gateway_error::invalid_params).rpc_code);
    ASSERT_EQ(services.audited.size(), 1u);
    const auto& a = services.audited[0];
    EXPECT_EQ(a.id, 5);
    ASSERT_TRUE(a.error);
    EXPECT_NE(a.error->find("params.notifications must be an object"), std::string::npos)
        << *a.error;
    EXPECT_EQ(a.outcome, protocol::describe(gateway_error::invalid_params).audit_outcome);
    ASSERT_TRUE(a.response);
    EXPECT_EQ(json::value(*a.response), json::parse(reply->body));
    EXPECT_EQ(listens.size(), 0u);
    EXPECT_TRUE(services.changed.empty());
    EXPECT_EQ(resolver.asked, 0);
}

} // namespace
} // namespace gate::gateway
