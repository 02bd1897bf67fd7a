// /api/federation's body for a viewer whose tenant sees some upstreams only
// (federation_facts::sees): the others are left out whole, counted nowhere, and a policy entry
// naming one is left out of its rule.
#include "config/load.hpp"
#include "gateway/entry/introspection.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace gate::gateway {
namespace {

TEST(IntrospectionPerTenant, AnUpstreamTheTenantDoesNotSeeIsLeftOutWhole) {
    auto loaded = config::parse(R"({
        "upstreams": [
            {"id": "alpha", "url": "http://127.0.0.1:1/mcp", "namespace": "a"},
            {"id": "beta", "url": "http://127.0.0.1:2/mcp", "namespace": "b",
             "owner": {"team": "beta-team"}, "labels": {"customer": "globex-only"}}],
        "policy": {"rules": [
            {"id": "everyone", "allow": [{"server": "alpha"}, {"server": "beta"}]},
            {"id": "no-env", "deny": [{"server": "*", "names": ["get-env"]},
                                      {"server": "beta", "names": ["secret"]}]}]}})");
    ASSERT_NE(loaded.doc, nullptr) << config::one_line(loaded.errors);
    boost::json::object health{
        {"upstreams", boost::json::array{{{"id", "alpha"}, {"status", "up"}},
                                         {{"id", "beta"}, {"status", "up"}}}}};
    policy::caller_ref viewer;
    std::optional<std::string> tenant = "acme";
    federation_facts facts{*loaded.doc, 1, health, nullptr, false, false, viewer, tenant};
    facts.sees = [](std::string_view id) { return id == "alpha"; };
    auto body = federation_snapshot(facts);
    const auto& ups = body.at("upstreams").as_array();
    ASSERT_EQ(ups.size(), 1u);
    EXPECT_EQ(ups[0].at("id").as_string(), "alpha");
    EXPECT_EQ(body.at("summary").at("upstreams").as_uint64(), 1u);
    EXPECT_EQ(body.at("summary").at("up").as_uint64(), 1u);
    const auto& rules = body.at("policy").at("rules").as_array();
    EXPECT_EQ(rules[0].at("allow").as_array().size(), 1u);
    const auto& deny = rules[1].at("deny").as_array();
    ASSERT_EQ(deny.size(), 1u); // the `*` entry names no upstream
    EXPECT_EQ(deny[0].at("server").as_string(), "*");
    auto text = boost::json::serialize(body);
    EXPECT_EQ(text.find("beta"), std::string::npos) << text;
    EXPECT_EQ(text.find("globex-only"), std::string::npos) << text;

    facts.sees = {}; // a viewer who sees them all
    auto all = federation_snapshot(facts);
    EXPECT_EQ(all.at("upstreams").as_array().size(), 2u);
    EXPECT_EQ(all.at("summary").at("upstreams").as_uint64(), 2u);
    EXPECT_EQ(all.at("policy").at("rules").as_array()[1].at("deny").as_array().size(), 2u);
}

} // namespace
} // namespace gate::gateway
