// The list methods (gateway/mcp/list_methods.hpp) over a fake of their services: the planned
// upstreams fetched with stage 6's tickets (a refused one left out unasked) or admitting
// themselves, each fetch counted by its outcome and a good one shared with the fleet; the page
// completed from what answered (refused when every upstream failed, or for a cursor that is
// not a string) and answered as the router cut it.
#include "gateway/mcp/list_methods.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "protocol/json_rpc.hpp"
#include "tests/support/kept_tool_selections.hpp"
#include "tests/unit/stage_rig.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <map>
#include <string>
#include <vector>

namespace gate::gateway {
namespace {

namespace json = boost::json;
namespace ec = protocol::error_code;
using protocol::list_kind;

// Answers as told and keeps what it was handed.
struct fake_list_services final : test::kept_tool_selections,
                                  list_fetcher,
                                  list_sharing,
                                  upstream_counts {
    boost::asio::awaitable<void> fill_from_fleet(list_kind, actors::list_plan&,
                                                 const request_context&) override {
        co_return;
    }
    void drop_shared_lists(const upstream_client&) override {}
    std::vector<std::string> asked; // "<service> <argument>"
    struct made_fetch {
        list_kind kind;
        protocol::client_profile profile;
        std::size_t upstream;
        const upstream_client::guard_ticket* admitted;
    };
    std::vector<made_fetch> fetches;
    std::vector<std::string> counted; // "<upstream id> <outcome>"
    struct made_share {
        list_kind kind;
        const upstream_client* client;
        json::array items;
        std::vector<std::string> written;
    };
    std::vector<made_share> shared;
    const actors::list_plan* completed_plan = nullptr;
    std::vector<actors::fetched_list> completed;
    std::optional<std::string> cursor;
    // What it answers.
    std::optional<actors::list_plan> planned;
    // By upstream; else one tool named after the upstream.
    std::map<std::size_t, std::variant<json::array, upstream_failure>> lists;
    list_page page = actors::list_answer{
        list_kind::tools, std::make_shared<const std::string>("[]"), std::nullopt, 0};

    boost::asio::awaitable<std::optional<actors::list_plan>> plan(list_kind kind,
                                                                  request_context&) override {
        asked.push_back("plan " + std::string(protocol::traits(kind).method));
        co_await test::suspend_once();
        co_return planned;
    }
    boost::asio::awaitable<std::variant<json::array, upstream_failure>>
    fetch(list_kind kind, protocol::client_profile profile, std::size_t upstream, std::string,
          ticket admitted, request_context&, std::vector<std::string>& written) override {
        asked.push_back("fetch " + std::to_string(upstream));
        fetches.push_back({kind, profile, upstream, admitted.get()});
        co_await test::suspend_once();
        auto at = lists.find(upstream);
        std::variant<json::array, upstream_failure> answer =
            at != lists.end() ? at->second
                              : json::array{json::object{{"name", "t" + std::to_string(upstream)}}};
        if (auto* items = std::get_if<json::array>(&answer))
            for (const auto& item : *items)
                written.push_back(json::serialize(item));
        co_return answer;
    }
    void count(const std::string& upstream, std::string_view outcome, double seconds) override {
        counted.push_back(upstream + " " + std::string(outcome));
        EXPECT_GE(seconds, 0.0);
    }
    void tool_dropped(const std::string& upstream, std::string_view reason) override {
        dropped.push_back(upstream + " " + std::string(reason));
    }
    std::vector<std::string> dropped;                      // "<upstream id> <reason>"
    std::shared_ptr<const actors::tool_listing> searching; // what complete was given
    void share_list(list_kind kind, protocol::client_profile, const upstream_client& upstream,
                    const json::array& items, const std::vector<std::string>& written) override {
        asked.push_back("share " + upstream.config().id);
        shared.push_back({kind, &upstream, items, written});
    }
    boost::asio::awaitable<list_page>
    complete(list_kind, const actors::list_plan& p, std::vector<actors::fetched_list> fetched,
             std::optional<std::string> c, request_context&,
             std::shared_ptr<const actors::tool_listing> l) override {
        asked.push_back("complete");
        searching = std::move(l);
        completed_plan = &p;
        completed = std::move(fetched);
        cursor = std::move(c);
        co_await test::suspend_once();
        co_return page;
    }

    std::size_t asked_to(std::string_view service) const {
        return std::count_if(asked.begin(), asked.end(),
                             [&](const std::string& a) { return a.starts_with(service); });
    }
};

upstream_failure failed(upstream_failure::kind what) {
    return upstream_failure{what, "it failed", 0, std::nullopt};
}

// A list of one tool, `name`.
json::array tools_of(std::string name) {
    return json::array{json::object{{"name", std::move(name)}}};
}

struct list_method_calls : test::stage_rig {
    std::vector<std::unique_ptr<upstream_guards>> guards; // what the test's tickets admit to
    fake_list_services services;
    list_methods lists{{services, services, services, services, services}};

    actors::list_plan plan_of(std::vector<std::size_t> fetch) const {
        return actors::list_plan{ctx.view->snap, std::move(fetch)};
    }
    list_methods::ticket ticket_at(std::size_t upstream) {
        guards.push_back(std::make_unique<upstream_guards>(doc->upstreams[upstream]));
        return std::make_shared<upstream_client::guard_ticket>(*guards.back());
    }
    std::vector<actors::fetched_list> fetch(const actors::list_plan& plan,
                                            std::vector<list_methods::ticket> t) {
        return finish(lists.fetch_lists(list_kind::tools, plan, std::move(t), ctx));
    }
    json::object complete(const actors::list_plan& plan, std::vector<actors::fetched_list> fetched,
                          json::object params = {}) {
        ctx.message.id = 7;
        return finish(lists.complete_list(list_kind::tools, plan, std::move(fetched),
                                          ctx.message.id, params, ctx));
    }
    static int code_of(const json::object& answer) {
        const auto* e = answer.if_contains("error");
        return e ? static_cast<int>(e->at("code").as_int64()) : 0;
    }
};

// -- fetch -------------------------------------------------------------------------------------

TEST_F(list_method_calls, an_upstream_without_a_ticket_is_left_out_unasked) {
    auto plan = plan_of({0, 1});
    auto admitted = ticket_at(1);
    auto fetched = fetch(plan, {nullptr, admitted});
    ASSERT_EQ(fetched.size(), 2u);
    EXPECT_EQ(fetched[0].upstream, 0u);
    EXPECT_FALSE(fetched[0].items) << "refused by stage 6: left out";
    EXPECT_EQ(fetched[1].upstream, 1u);
    EXPECT_EQ(fetched[1].items, tools_of("t1"));
    EXPECT_EQ(fetched[1].sources, std::vector<std::string>{R"({"name":"t1"})"})
        << "each item as the upstream wrote it";
    ASSERT_EQ(services.fetches.size(), 1u) << "the refused upstream is not asked";
    EXPECT_EQ(services.fetches[0].upstream, 1u);
    EXPECT_EQ(services.fetches[0].admitted, admitted.get()) << "stage 6's admission, handed on";
    EXPECT_EQ(services.counted, std::vector<std::string>{"up-b ok"});
    EXPECT_EQ(ctx.audit.upstream_calls, 1);
}

TEST_F(list_method_calls, a_tool_whose_namespaced_name_clients_would_refuse_is_left_out) {
    const auto ns = *doc->upstreams[1].namespace_ + doc->routing.namespace_separator;
    const std::string longest(128 - ns.size(), 'x'), too_long(129 - ns.size(), 'y');
    services.lists = {
        {1, json::array{json::object{{"name", "fine"}}, json::object{{"name", too_long}},
                        json::object{{"name", "bad name\nX"}}, json::object{{"name", longest}},
                        json::object{{"name", ""}}, json::object{{"name", "ok.name-2_A"}}}}};
    auto fetched = fetch(plan_of({1}), {});
    ASSERT_EQ(fetched.size(), 1u);
    json::array kept{json::object{{"name", "fine"}}, json::object{{"name", longest}},
                     json::object{{"name", "ok.name-2_A"}}};
    EXPECT_EQ(fetched[0].items, kept) << "128 characters namespaced is the limit, not over it";
    ASSERT_EQ(fetched[0].sources.size(), 3u) << "the texts follow their items";
    EXPECT_EQ(fetched[0].sources[1], json::serialize(kept[1]));
    EXPECT_EQ(services.dropped,
              (std::vector<std::string>{"up-b too_long", "up-b charset", "up-b empty"}));
    ASSERT_EQ(services.shared.size(), 1u);
    EXPECT_EQ(services.shared[0].items, kept) << "the fleet gets the list clients get";
}

TEST_F(list_method_calls, without_tickets_every_planned_upstream_admits_itself) {
    auto plan = plan_of({0, 1});
    plan.profile = protocol::profile_bit::sampling;
    auto fetched = fetch(plan, {});
    ASSERT_EQ(fetched.size(), 2u);
    EXPECT_TRUE(fetched[0].items);
    EXPECT_TRUE(fetched[1].items);
    ASSERT_EQ(services.fetches.size(), 2u);
    for (const auto& f : services.fetches) {
        EXPECT_EQ(f.admitted, nullptr) << "upstream " << f.upstream;
        EXPECT_EQ(f.profile, protocol::profile_bit::sampling) << "the plan's profile";
        EXPECT_EQ(f.kind, list_kind::tools);
    }
    EXPECT_EQ(ctx.audit.upstream_calls, 2);
}

TEST_F(list_method_calls, an_upstream_taking_the_callers_credential_is_not_asked_without_one) {
    // Gate's own lists (the console's catalog, icons) have no caller: such an upstream would
    // only answer 401, and what it serves one caller is no one else's.
    doc->upstreams[0].auth.strategy = "passthrough";
    load();
    auto fetched = fetch(plan_of({0, 1}), {});
    ASSERT_EQ(fetched.size(), 2u);
    EXPECT_FALSE(fetched[0].items) << "left out unasked";
    EXPECT_TRUE(fetched[1].items);
    ASSERT_EQ(services.fetches.size(), 1u);
    EXPECT_EQ(services.fetches[0].upstream, 1u);

    fresh();
    services.fetches.clear();
    ctx.who.caller = std::make_shared<const principal>(principal{"alice", "https://idp", {}, {}});
    fetched = fetch(plan_of({0, 1}), {});
    EXPECT_TRUE(fetched[0].items) << "a caller's list asks it with the caller's credential";
    EXPECT_EQ(services.fetches.size(), 2u);
}

TEST_F(list_method_calls, a_callers_own_listing_is_counted_and_cleaned_but_never_shared) {
    const auto ns = *doc->upstreams[1].namespace_ + doc->routing.namespace_separator;
    services.lists = {{1, json::array{json::object{{"name", "whoami"}},
                                      json::object{{"name", std::string(129 - ns.size(), 'y')}}}},
                      {0, failed(upstream_failure::kind::connect_error)}};
    auto got = finish(lists.listing(list_kind::tools, protocol::full_profile, 1, ctx));
    ASSERT_TRUE(std::holds_alternative<json::array>(got));
    EXPECT_EQ(std::get<json::array>(got), tools_of("whoami"))
        << "a name clients refuse is left out";
    EXPECT_TRUE(services.shared.empty()) << "one caller's listing never goes to the fleet";
    EXPECT_EQ(services.counted, std::vector<std::string>{"up-b ok"});
    EXPECT_EQ(ctx.audit.upstream_calls, 1);

    auto failure = finish(lists.listing(list_kind::tools, protocol::full_profile, 0, ctx));
    ASSERT_TRUE(std::holds_alternative<upstream_failure>(failure));
    EXPECT_EQ(std::get<upstream_failure>(failure).message, "it failed") << "why, for the viewer";
    EXPECT_EQ(services.counted.back(), "up-a connect_error");
}

TEST_F(list_method_calls, a_failed_fetch_is_counted_with_its_outcome_and_left_out) {
    services.lists = {{0, failed(upstream_failure::kind::connect_error)}};
    auto fetched = fetch(plan_of({0, 1}), {});
    ASSERT_EQ(fetched.size(), 2u);
    EXPECT_FALSE(fetched[0].items);
    EXPECT_TRUE(fetched[1].items);
    std::sort(services.counted.begin(), services.counted.end());
    EXPECT_EQ(services.counted, (std::vector<std::string>{"up-a connect_error", "up-b ok"}));
    ASSERT_EQ(services.shared.size(), 1u) << "only what answered is shared";
    EXPECT_EQ(services.shared[0].client, ctx.view->made(1)) << "up-b's own client";
    EXPECT_EQ(services.shared[0].kind, list_kind::tools);
    EXPECT_EQ(services.shared[0].items, tools_of("t1"));
    EXPECT_EQ(services.shared[0].written, std::vector<std::string>{R"({"name":"t1"})"});

    fresh();
    services.counted.clear();
    services.shared.clear();
    services.lists = {{1, failed(upstream_failure::kind::timeout)}};
    fetch(plan_of({1}), {});
    EXPECT_EQ(services.counted, std::vector<std::string>{"up-b error"});
    EXPECT_TRUE(services.shared.empty());
}

// -- complete ----------------------------------------------------------------------------------

TEST_F(list_method_calls, a_list_every_upstream_failed_is_refused) {
    auto plan = plan_of({0, 1});
    auto answer = complete(plan, {{0, std::nullopt}, {1, std::nullopt}});
    EXPECT_EQ(code_of(answer), ec::upstream_unavailable);
    EXPECT_EQ(ctx.audit.error, "all upstreams are unavailable");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::upstream_down);
    EXPECT_EQ(services.asked_to("complete"), 0u);
}

TEST_F(list_method_calls, an_upstream_the_router_serves_from_cache_keeps_the_list_going) {
    auto plan = plan_of({0});
    auto answer = complete(plan, {{0, std::nullopt}});
    EXPECT_EQ(code_of(answer), 0) << "up-b was not fetched: its cached list stands";
    EXPECT_EQ(services.asked_to("complete"), 1u);
}

TEST_F(list_method_calls, the_fleets_lists_are_completed_with_the_fetched_ones) {
    auto plan = plan_of({0});
    plan.from_fleet = {{1, tools_of("t1")}};
    auto answer = complete(plan, {{0, std::nullopt}});
    EXPECT_EQ(code_of(answer), 0);
    ASSERT_EQ(services.completed.size(), 2u);
    EXPECT_EQ(services.completed[0].upstream, 0u);
    EXPECT_FALSE(services.completed[0].items);
    EXPECT_EQ(services.completed[1].upstream, 1u);
    EXPECT_EQ(services.completed[1].items, tools_of("t1"));
    EXPECT_EQ(services.completed_plan, &plan);
}

TEST_F(list_method_calls, a_cursor_must_be_a_string) {
    auto plan = plan_of({0, 1});
    auto answer = complete(plan, {{0, json::array{}}, {1, json::array{}}}, {{"cursor", 5}});
    EXPECT_EQ(code_of(answer), ec::invalid_params);
    EXPECT_EQ(ctx.audit.error, "invalid cursor: not a string");
    EXPECT_EQ(services.asked_to("complete"), 0u);

    answer = complete(plan, {{0, json::array{}}, {1, json::array{}}}, {{"cursor", nullptr}});
    EXPECT_EQ(code_of(answer), 0) << "a null cursor is none";
    EXPECT_FALSE(services.cursor);
}

TEST_F(list_method_calls, a_string_cursor_goes_to_the_router) {
    auto plan = plan_of({0, 1});
    complete(plan, {{0, json::array{}}, {1, json::array{}}}, {{"cursor", "c-2"}});
    EXPECT_EQ(services.cursor, "c-2");
}

TEST_F(list_method_calls, a_router_that_does_not_answer_is_an_internal_error) {
    services.page = std::nullopt;
    auto answer = complete(plan_of({0, 1}), {{0, json::array{}}, {1, json::array{}}});
    EXPECT_EQ(code_of(answer), ec::internal_error);
    EXPECT_EQ(ctx.audit.error, "internal error: router unavailable");
}

TEST_F(list_method_calls, a_routers_refusal_is_answered_with_its_row) {
    services.page =
        actors::route_error{protocol::gateway_error::expired_cursor, "expired cursor: restart", ""};
    auto answer = complete(plan_of({0, 1}), {{0, json::array{}}, {1, json::array{}}});
    EXPECT_EQ(code_of(answer), ec::invalid_params);
    EXPECT_EQ(ctx.audit.error, "expired cursor: restart");
}

TEST_F(list_method_calls, a_page_goes_on_the_wire_as_the_router_cut_it) {
    services.page = actors::list_answer{
        list_kind::tools, std::make_shared<const std::string>(R"([{"name":"a__x"}])"), "next-2", 1};
    auto answer = complete(plan_of({0, 1}), {{0, json::array{}}, {1, json::array{}}});
    EXPECT_EQ(answer, json::parse(R"({"jsonrpc":"2.0","id":7,"result":{}})"))
        << "the object only settles the outcome";
    EXPECT_EQ(
        ctx.answer.verbatim,
        R"({"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a__x"}],"nextCursor":"next-2"}})");
    EXPECT_EQ(ctx.audit.items_served, 1);
}

TEST_F(list_method_calls, a_list_response_carries_the_clients_id) {
    auto answer = list_response(actors::list_answer{list_kind::prompts,
                                                    std::make_shared<const std::string>("[]"),
                                                    std::nullopt, 0},
                                "r-1", ctx);
    EXPECT_EQ(answer.at("id"), "r-1");
    EXPECT_EQ(ctx.answer.verbatim, R"({"jsonrpc":"2.0","id":"r-1","result":{"prompts":[]}})");
    EXPECT_EQ(ctx.audit.items_served, 0);
}

// -- federated ---------------------------------------------------------------------------------

TEST_F(list_method_calls, a_federated_list_without_a_plan_is_refused) {
    ctx.message.id = 7;
    auto answer = finish(lists.federated(list_kind::resources, ctx.message.id, {}, ctx));
    EXPECT_EQ(code_of(answer), ec::internal_error);
    EXPECT_EQ(ctx.audit.error, "internal error: router unavailable");
    EXPECT_EQ(services.asked, std::vector<std::string>{"plan resources/list"});
}

TEST_F(list_method_calls, a_federated_list_is_planned_fetched_and_completed) {
    services.planned = plan_of({1});
    ctx.message.id = 7;
    auto answer =
        finish(lists.federated(list_kind::resources, ctx.message.id, {{"cursor", "c-3"}}, ctx));
    EXPECT_EQ(code_of(answer), 0);
    EXPECT_EQ(services.asked, (std::vector<std::string>{"plan resources/list", "fetch 1",
                                                        "share up-b", "complete"}));
    ASSERT_EQ(services.fetches.size(), 1u);
    EXPECT_EQ(services.fetches[0].admitted, nullptr) << "gate's own fetch admits itself";
    EXPECT_EQ(services.fetches[0].kind, list_kind::resources);
    EXPECT_EQ(services.cursor, "c-3");
}

// -- tool search (docs/tool-search.md) ----------------------------------------------------------

std::vector<std::string> names_in(const json::array& tools) {
    std::vector<std::string> out;
    for (const auto& t : tools)
        out.emplace_back(t.at("name").as_string());
    return out;
}

struct tool_search_calls : list_method_calls {
    tool_search_calls() {
        doc->server.tool_search.enabled = true;
        fresh();
        ctx.client.session = "s-1";
    }
    json::object call(protocol::gate_tool tool, std::string_view arguments) {
        ctx.message.id = 7;
        json::object params{{"name", tool == protocol::gate_tool::search ? "gate_search_tools"
                                                                         : "gate_select_tools"},
                            {"arguments", json::parse(arguments)}};
        return finish(lists.answer_gate_tool(tool, plan_of({0}), {}, ctx.message.id, params, ctx));
    }
};

TEST_F(tool_search_calls, a_tools_list_is_gates_tools_and_the_sessions_selection) {
    services.selections["s-1"] = {"a__x"};
    complete(plan_of({}), {});
    ASSERT_TRUE(services.searching);
    EXPECT_EQ(names_in(services.searching->gate_tools),
              (std::vector<std::string>{"gate_search_tools", "gate_select_tools"}));
    EXPECT_EQ(services.searching->selected, std::vector<std::string>{"a__x"});
    // A 2026-07-28 client has no session: the search only, no selection.
    ctx.client.modern = true;
    complete(plan_of({}), {});
    ASSERT_TRUE(services.searching);
    EXPECT_EQ(names_in(services.searching->gate_tools),
              std::vector<std::string>{"gate_search_tools"});
    EXPECT_TRUE(services.searching->selected.empty());
}

TEST_F(tool_search_calls, off_or_for_other_subjects_the_whole_list_is_listed) {
    doc->server.tool_search.subjects = config::subjects{};
    doc->server.tool_search.subjects->groups = {"agents"};
    fresh();
    complete(plan_of({}), {});
    EXPECT_EQ(services.asked_to("complete"), 1u);
    EXPECT_FALSE(services.searching) << "an anonymous caller is not among the subjects";
    ctx.who.caller = std::make_shared<const policy::principal>(
        policy::principal{"ann", "https://idp", {"agents"}, {}});
    complete(plan_of({}), {});
    EXPECT_TRUE(services.searching);
    doc->server.tool_search.enabled = false;
    fresh();
    complete(plan_of({}), {});
    EXPECT_FALSE(services.searching);
}

TEST_F(tool_search_calls, a_search_asks_the_router_and_answers_structured_tools) {
    services.found = actors::found_tools{json::array{json::object{{"name", "a__read_file"}}}, {}};
    auto answer = call(protocol::gate_tool::search, R"({"query":"read a file","limit":4})");
    ASSERT_EQ(services.queries.size(), 1u);
    EXPECT_EQ(services.queries[0].text, "read a file");
    EXPECT_EQ(services.queries[0].limit, 4u);
    EXPECT_FALSE(services.queries[0].names);
    const auto& result = answer.at("result").as_object();
    EXPECT_FALSE(result.contains("isError"));
    EXPECT_EQ(names_in(result.at("structuredContent").at("tools").as_array()),
              std::vector<std::string>{"a__read_file"});
    EXPECT_EQ(ctx.audit.items_served, 1);
}

TEST_F(tool_search_calls, bad_arguments_are_a_tool_error_and_ask_nothing) {
    auto answer = call(protocol::gate_tool::search, R"({"query":"x","limit":0})");
    EXPECT_TRUE(answer.at("result").at("isError").as_bool());
    EXPECT_NE(json::serialize(answer).find("limit must be an integer"), std::string::npos);
    answer = call(protocol::gate_tool::select, R"({"names":"a__x"})");
    EXPECT_TRUE(answer.at("result").at("isError").as_bool());
    EXPECT_TRUE(services.queries.empty());
    EXPECT_TRUE(services.selections.empty());
}

TEST_F(tool_search_calls, a_selection_keeps_only_what_the_caller_may_call_and_tells_the_session) {
    services.found =
        actors::found_tools{json::array{json::object{{"name", "a__x"}}}, {"b__secret"}};
    auto answer = call(protocol::gate_tool::select, R"({"names":["a__x","b__secret"]})");
    ASSERT_EQ(services.queries.size(), 1u);
    EXPECT_EQ(services.queries[0].names, (std::vector<std::string>{"a__x", "b__secret"}));
    EXPECT_EQ(services.selections["s-1"], std::vector<std::string>{"a__x"});
    EXPECT_EQ(services.list_changed, 1u);
    const auto& structured = answer.at("result").at("structuredContent");
    EXPECT_EQ(structured.at("unknown").as_array().size(), 1u);
    EXPECT_EQ(structured.at("selected").as_array().size(), 1u);
}

} // namespace
} // namespace gate::gateway
