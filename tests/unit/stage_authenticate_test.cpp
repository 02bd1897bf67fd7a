// Stage 2, authenticate, with a fake token checker (gateway/pipeline/s2_authenticate.hpp):
// without one every caller is anonymous; a token known at once or verified later places its
// principal (and its tenant) on the request; a missing or invalid token is answered 401 with
// the challenge that points at the resource metadata; a principal two tenants select, 403.
#include "gateway/pipeline/s2_authenticate.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/json/parse.hpp>
#include <string>
#include <vector>

namespace gate::gateway::pipeline {
namespace {

namespace json = boost::json;
using result = authenticate_services::result;

// Answers as told: `now` at once (nullopt: verify), else `later` after suspending once.
struct fake_tokens final : authenticate_services {
    std::optional<result> now;
    result later = auth_refusal{};
    std::vector<std::string> asked; // "now <header>", "later <header>"

    std::optional<result> authenticate_now(std::optional<std::string_view> authorization,
                                           bool) override {
        asked.push_back("now " + std::string(authorization.value_or("-")));
        return now;
    }
    boost::asio::awaitable<result> authenticate(std::optional<std::string_view> authorization,
                                                bool) override {
        asked.push_back("later " + std::string(authorization.value_or("-")));
        co_await test::suspend_once();
        co_return later;
    }
};

policy::caller_ref who(std::string subject, std::vector<std::string> groups = {}) {
    return std::make_shared<const principal>(
        principal{std::move(subject), "https://idp.example", std::move(groups), {}});
}

constexpr auto metadata = "https://gate.example/.well-known/oauth-protected-resource";

struct stage_authenticate : test::stage_rig {
    fake_tokens tokens;
    std::unique_ptr<stage> auth = make_authenticate(&tokens, metadata);

    ran run() {
        ctx.admission.authorization = "Bearer t";
        return drive(auth->run(ctx));
    }
    std::string challenge() const {
        for (const auto& [name, value] : ctx.answer.refusal_reply->headers)
            if (name == "WWW-Authenticate")
                return value;
        return "(none)";
    }
    json::object body() const { return json::parse(ctx.answer.refusal_reply->body).as_object(); }

    // Tenants acme (group acme) and ops (group ops).
    void with_tenants() {
        for (auto [id, group] : {std::pair{"acme", "acme"}, std::pair{"ops", "ops"}}) {
            config::tenant t;
            t.id = id;
            t.subjects.groups = {group};
            doc->tenants.push_back(t);
        }
        load();
    }
};

TEST_F(stage_authenticate, is_the_authenticate_stage) {
    EXPECT_EQ(auth->id(), gateway::stage::authenticate);
}

TEST_F(stage_authenticate, without_a_checker_every_caller_is_anonymous) {
    auto open = make_authenticate(nullptr, "");
    ctx.who.caller = who("left-over");
    ctx.admission.authorization = "Bearer t";
    auto r = drive(open->run(ctx));
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    EXPECT_FALSE(ctx.who.caller);
    EXPECT_FALSE(ctx.answer.refusal_reply);
}

TEST_F(stage_authenticate, a_token_known_at_once_places_its_principal_without_waiting) {
    tokens.now = result{who("alice")};
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_TRUE(r.at_once);
    ASSERT_TRUE(ctx.who.caller);
    EXPECT_EQ(ctx.who.caller->subject, "alice");
    EXPECT_FALSE(ctx.who.tenant) << "no tenants configured";
    EXPECT_EQ(tokens.asked, (std::vector<std::string>{"now Bearer t"}));
}

TEST_F(stage_authenticate, a_token_to_verify_is_verified_then_placed) {
    tokens.later = who("bob");
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_FALSE(r.at_once);
    ASSERT_TRUE(ctx.who.caller);
    EXPECT_EQ(ctx.who.caller->subject, "bob");
    EXPECT_EQ(tokens.asked, (std::vector<std::string>{"now Bearer t", "later Bearer t"}));
}

TEST_F(stage_authenticate, a_missing_token_is_answered_401_with_a_bare_challenge) {
    tokens.now = result{auth_refusal{"", "a Bearer token is required"}};
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_TRUE(r.at_once);
    EXPECT_FALSE(ctx.who.caller);
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 401);
    EXPECT_EQ(challenge(), std::string("Bearer resource_metadata=\"") + metadata + "\"");
    EXPECT_EQ(body().at("error"), "unauthorized");
    EXPECT_EQ(body().at("error_description"), "a Bearer token is required");
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::unauthenticated);
    EXPECT_EQ(ctx.answer.rejection, "unauthenticated");
    EXPECT_EQ(ctx.method, "http");
}

TEST_F(stage_authenticate, an_invalid_token_is_answered_401_naming_the_error_quoted) {
    tokens.later = auth_refusal{"invalid_token", "bad \"aud\\\"\x01"};
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::answered);
    EXPECT_FALSE(r.at_once);
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 401);
    EXPECT_EQ(challenge(), std::string("Bearer resource_metadata=\"") + metadata +
                               "\", error=\"invalid_token\", error_description=\"bad "
                               "\\\"aud\\\\\\\" \"");
    EXPECT_EQ(body().at("error"), "invalid_token");
    EXPECT_EQ(ctx.answer.rejection, "unauthenticated");
}

TEST_F(stage_authenticate, a_principal_is_placed_in_the_tenant_its_claims_select) {
    with_tenants();
    tokens.now = result{who("carol", {"ops"})};
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::proceed);
    EXPECT_EQ(ctx.who.tenant, "ops");
    EXPECT_EQ(ctx.who.tenant_index, 1u);
}

TEST_F(stage_authenticate, a_principal_no_tenant_selects_goes_on_in_none) {
    with_tenants();
    tokens.now = result{who("dave", {"other"})};
    EXPECT_EQ(run().verdict, verdict::proceed);
    EXPECT_FALSE(ctx.who.tenant);
    EXPECT_FALSE(ctx.who.tenant_index);
}

TEST_F(stage_authenticate, a_principal_two_tenants_select_is_answered_403) {
    with_tenants();
    tokens.later = who("eve", {"acme", "ops"});
    auto r = run();
    EXPECT_EQ(r.verdict, verdict::answered);
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 403);
    EXPECT_EQ(body().at("error"), "ambiguous_tenant");
    EXPECT_NE(ctx.audit.error->find("eve is selected by tenants acme and ops"), std::string::npos)
        << *ctx.audit.error;
    EXPECT_EQ(ctx.audit.outcome, protocol::outcome::forbidden);
    EXPECT_FALSE(ctx.who.tenant);
}

} // namespace
} // namespace gate::gateway::pipeline
