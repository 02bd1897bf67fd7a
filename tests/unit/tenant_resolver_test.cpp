// Tenants: placed by verified claims, at most one per principal, and what each sees.
#include "policy/tenant_resolver.hpp"

#include <gtest/gtest.h>

using namespace gate;

namespace {
config::tenant tenant(std::string id, config::subjects s,
                      std::optional<std::vector<std::string>> upstreams = std::nullopt) {
    return {std::move(id), std::move(s), std::nullopt, std::nullopt, std::move(upstreams)};
}
gate::policy::principal who(std::string sub, std::vector<std::string> groups,
                            boost::json::object claims = {}) {
    return {std::move(sub), "https://idp.example", std::move(groups), std::move(claims)};
}
} // namespace

TEST(TenantResolver, PlacesAPrincipalByItsClaimsAndRefusesOverlap) {
    config::subjects acme, globex, ops;
    acme.claims.emplace("org", std::string("acme"));
    globex.groups = {"globex"};
    ops.subs = {"root"};
    ops.issuers = {"https://idp.example"};
    gate::policy::tenant_resolver r(
        {tenant("acme", acme), tenant("globex", globex), tenant("ops", ops)});

    auto placed = [&](const gate::policy::principal& p) -> std::string {
        auto t = r.resolve(p);
        if (auto* i = std::get_if<std::size_t>(&t))
            return r.tenant(*i).id;
        if (auto* both = std::get_if<gate::policy::tenant_resolver::ambiguous>(&t))
            return "ambiguous:" + both->first + "," + both->second;
        return "none";
    };
    EXPECT_EQ(placed(who("a", {}, {{"org", "acme"}})), "acme");
    EXPECT_EQ(placed(who("g", {"globex"})), "globex");
    EXPECT_EQ(placed(who("root", {})), "ops");
    EXPECT_EQ(placed(who("nobody", {"other"}, {{"org", "initech"}})), "none");
    // Selected by two: refused, naming both, never placed by the order of the document.
    EXPECT_EQ(placed(who("x", {"globex"}, {{"org", "acme"}})), "ambiguous:acme,globex");
}

TEST(TenantResolver, ATenantSeesItsUpstreamsOrAll) {
    config::subjects s;
    s.subs = {"a"};
    gate::policy::tenant_resolver r({tenant("some", s, std::vector<std::string>{"alpha"}),
                                     tenant("all", s),
                                     tenant("none", s, std::vector<std::string>{})});
    EXPECT_TRUE(r.sees(0, "alpha"));
    EXPECT_FALSE(r.sees(0, "beta"));
    EXPECT_TRUE(r.sees(1, "beta"));
    EXPECT_FALSE(r.sees(2, "alpha"));
}
