// One judge toward an upstream (issue 47): every spelling a client may name an item by (a
// tool's namespaced name, its short alias, its full name where it is shortened; a view's
// rewritten ui:// URI and the one its upstream wrote) routes to one canonical identity: the
// upstream, its own name or URI in the params, and the name gate lists it by. The checks after
// the route (policy, pins, tool limits, the decision hook) read only that.
#include "actors/federation/federation.hpp"
#include "test_config.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate;
using protocol::list_kind;
namespace json = boost::json;

namespace canonical_identity_test {

constexpr auto every_profile = protocol::full_profile;
const gate::actors::time_point at_start{};

// Two upstreams, "up-a" and "up-b" (namespaces a and b), names over 20 characters shortened;
// `more` amends the document (a policy, tenants).
template <class Amend> gate::actors::federation shortening(Amend&& more) {
    auto doc = std::make_shared<config::document>(*test::two_upstreams()->doc);
    doc->routing.max_name_length = 20;
    more(*doc);
    return gate::actors::federation(gate::actors::make_snapshot(doc, 1),
                                    protocol::cursor_codec::with_random_key());
}
gate::actors::federation shortening() {
    return shortening([](config::document&) {});
}

struct identity {
    std::size_t upstream;
    std::string own;    // the upstream's own name or URI, as the params carry it upstream
    std::string listed; // the name or URI gate lists it by
    bool operator==(const identity&) const = default;
};

identity identity_of(const gate::actors::federation& f, std::string_view method,
                     std::string_view key, std::string_view spelling,
                     std::optional<std::size_t> tenant = {}) {
    auto r = f.resolve(method, json::object{{key, spelling}}, tenant);
    const auto* ok = std::get_if<actors::route>(&r);
    if (!ok) {
        ADD_FAILURE() << spelling << ": " << std::get<gate::actors::route_error>(r).message;
        return {};
    }
    return {ok->upstream, std::string(ok->params.at(key).as_string()), ok->name};
}

json::array named(std::initializer_list<const char*> names) {
    json::array a;
    for (auto n : names)
        a.push_back(json::object{{"name", n}});
    return a;
}

} // namespace canonical_identity_test

using namespace canonical_identity_test;

TEST(canonical_identity, every_spelling_of_a_tool_routes_to_one_identity) {
    auto f = shortening();
    const std::string own = "a_rather_long_tool_name";
    f.store(1, list_kind::tools, every_profile, named({"echo", own.c_str()}), at_start);
    const auto& codec = f.snapshot_ptr()->codec;
    const auto alias = codec.client_name(1, own);
    ASSERT_EQ(alias.size(), 20u);
    const identity expected{1, own, alias};
    for (const auto& spelling : {alias, "b__" + own})
        EXPECT_EQ(identity_of(f, "tools/call", "name", spelling), expected) << spelling;
    // A name that is not shortened has one spelling, listed as it is.
    EXPECT_EQ(identity_of(f, "tools/call", "name", "b__echo"), (identity{1, "echo", "b__echo"}));
}

TEST(canonical_identity, both_uris_of_a_view_route_to_one_identity) {
    auto f = shortening();
    f.store(0, list_kind::resources, every_profile,
            json::parse(R"([{"uri":"file:///a.txt"}])").as_array(), at_start);
    f.store(1, list_kind::resources, every_profile,
            json::parse(R"([{"uri":"ui://dash/app.html"}])").as_array(), at_start);
    const identity expected{1, "ui://dash/app.html", "ui://b__dash/app.html"};
    for (const auto* method : {"resources/read", "resources/subscribe"})
        for (const auto* spelling : {"ui://b__dash/app.html", "ui://dash/app.html"})
            EXPECT_EQ(identity_of(f, method, "uri", spelling), expected) << method << spelling;
    // Other schemes are never rewritten: one spelling.
    EXPECT_EQ(identity_of(f, "resources/read", "uri", "file:///a.txt"),
              (identity{0, "file:///a.txt", "file:///a.txt"}));
}

TEST(canonical_identity, a_deny_on_a_views_listed_uri_hides_it_from_the_list) {
    auto f = shortening([](config::document& doc) {
        config::policy p;
        p.default_decision = "allow";
        config::rule r;
        r.id = "no-view";
        r.deny = std::vector<config::grant>{{"up-b", {}, {"ui://b__dash/app.html"}}};
        p.rules.push_back(r);
        doc.policy = p;
    });
    f.store(
        1, list_kind::resources, every_profile,
        json::parse(R"([{"uri":"ui://dash/app.html"},{"uri":"ui://dash/other.html"}])").as_array(),
        at_start);
    auto page =
        std::get<gate::actors::list_answer>(f.page(list_kind::resources, every_profile, {}, 7));
    auto items = json::parse(*page.items).as_array();
    ASSERT_EQ(items.size(), 1u) << *page.items;
    EXPECT_EQ(items[0].at("uri"), "ui://b__dash/other.html");
}

TEST(canonical_identity, a_raw_view_uri_is_resolved_among_the_upstreams_the_tenant_sees) {
    auto f = shortening([](config::document& doc) {
        config::tenant acme;
        acme.id = "acme";
        acme.subjects.groups = {"acme"};
        acme.upstreams = std::vector<std::string>{"up-a"};
        doc.tenants.push_back(acme);
    });
    const auto view = json::parse(R"([{"uri":"ui://dash/app.html"}])").as_array();
    f.store(0, list_kind::resources, every_profile, view, at_start);
    f.store(1, list_kind::resources, every_profile, view, at_start);
    // A caller seeing both cannot be told which is meant: refused, naming both.
    auto both = f.resolve("resources/read", json::object{{"uri", "ui://dash/app.html"}});
    const auto& refused = std::get<gate::actors::route_error>(both);
    EXPECT_NE(refused.message.find("ui://a__dash/app.html, ui://b__dash/app.html"),
              std::string::npos)
        << refused.message;
    // acme sees up-a alone: the view is up-a's, and nothing of up-b is named.
    EXPECT_EQ(identity_of(f, "resources/read", "uri", "ui://dash/app.html", 0),
              (identity{0, "ui://dash/app.html", "ui://a__dash/app.html"}));
}

TEST(canonical_identity, a_route_keeps_the_spelling_sent_where_it_is_not_the_listed_one) {
    // A refusal that must read as for an unknown name (an upstream the tenant does not see)
    // echoes what the client sent, not the listed spelling.
    auto f = shortening();
    const std::string own = "a_rather_long_tool_name";
    f.store(1, list_kind::tools, every_profile, named({own.c_str()}), at_start);
    f.store(1, list_kind::resources, every_profile,
            json::parse(R"([{"uri":"ui://dash/app.html"}])").as_array(), at_start);
    const auto sent_of = [&](std::string_view method, std::string_view key, std::string spelling) {
        auto r = f.resolve(method, json::object{{key, spelling}});
        return route_sent_spelling(*f.snapshot_ptr(), method, std::get<actors::route>(r));
    };
    const auto alias = f.snapshot_ptr()->codec.client_name(1, own);
    for (const auto& spelling : {"b__" + own, alias})
        EXPECT_EQ(sent_of("tools/call", "name", spelling), spelling);
    for (const auto* spelling : {"ui://dash/app.html", "ui://b__dash/app.html"})
        EXPECT_EQ(sent_of("resources/read", "uri", spelling), spelling);
}
