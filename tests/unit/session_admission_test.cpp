// Session admission (gateway/mcp/session_admission.hpp) over a fake of its services and a real
// session_table, on the rig's federation: an admitted initialize gets its session and counts
// nothing; a caller at its share (server.sessions.perPrincipal) gives up its own least recently
// used idle session, ended everywhere and counted by its reason; a refusal (every session that
// could go in use) counted and answered 429 with Retry-After 10 for the caller's share, 503 with
// Retry-After 60 for the whole table; and a session the fleet opened elsewhere (adopted) carried
// out by the same rules.
#include "gateway/mcp/session_admission.hpp"
#include "protocol/gateway_error.hpp"
#include "tests/unit/stage_rig.hpp"

#include <boost/json/parse.hpp>
#include <string>
#include <vector>

namespace gate::gateway {
namespace {

namespace json = boost::json;
using protocol::gateway_error;
using clock = std::chrono::steady_clock;
using transport::http_reply;

// Notes what it was told, in order: "end_everywhere <id>", "eviction <reason>", "refusal <reason>".
struct fake_admission_services final : session_admission_services, session_counts {
    std::vector<std::string> told;
    void end_everywhere(const std::string& session) override {
        told.push_back("end_everywhere " + session);
    }
    void count_eviction(std::string_view reason) override {
        told.push_back("eviction " + std::string(reason));
    }
    void count_refusal(std::string_view reason) override {
        told.push_back("refusal " + std::string(reason));
    }
};

policy::caller_ref principal_named(std::string subject) {
    auto p = std::make_shared<principal>();
    p->issuer = "https://idp.example";
    p->subject = std::move(subject);
    return p;
}

struct session_admission_rig : test::stage_rig {
    session_table table;
    fake_admission_services services;
    session_admission admission{table, services, services};
    policy::caller_ref alice = principal_named("alice");
    policy::caller_ref bob = principal_named("bob");
    // A while ago: sessions opened directly in the table are older than any opened now.
    clock::time_point earlier = clock::now() - std::chrono::hours(1);

    // server.sessions as the document says it, and the table's limits to match.
    void limits(std::size_t max, std::size_t per_principal) {
        doc->server.sessions.max = static_cast<std::int64_t>(max);
        doc->server.sessions.per_principal = static_cast<std::int64_t>(per_principal);
        load();
        table.set_limits({max, per_principal});
    }
    // A session of `who` opened in the table itself at `earlier + minutes`.
    std::string held_by(const policy::caller_ref& who, int minutes) {
        auto a = table.open({"2025-11-25",
                             {},
                             principal_key(who),
                             who,
                             share_holder(who, boost::asio::ip::address{})},
                            earlier + std::chrono::minutes(minutes));
        EXPECT_TRUE(a.id);
        EXPECT_FALSE(a.evicted);
        return a.id.value_or("");
    }
    std::optional<std::string> open_as(const policy::caller_ref& who) {
        ctx.who.caller = who;
        ctx.proxied.negotiated_version = "2025-11-25";
        return admission.open_session(ctx, json::object{{"roots", json::object{}}});
    }
    static std::string header(const http_reply& r, std::string_view name) {
        for (const auto& [n, v] : r.headers)
            if (n == name)
                return v;
        return "(none)";
    }
    // The refusal `ctx` carries: its status, its JSON-RPC code and its Retry-After.
    void expect_refusal(gateway_error e, int status, const std::string& retry_after,
                        const std::string& bound) {
        ASSERT_TRUE(ctx.answer.refusal_reply);
        const auto& reply = *ctx.answer.refusal_reply;
        EXPECT_EQ(static_cast<int>(reply.status), status);
        EXPECT_EQ(protocol::describe(e).http_status, status);
        auto body = json::parse(reply.body).as_object();
        EXPECT_EQ(body.at("error").at("code").to_number<int>(), protocol::describe(e).rpc_code);
        EXPECT_EQ(header(reply, "Retry-After"), retry_after);
        ASSERT_TRUE(ctx.audit.error);
        EXPECT_EQ(*ctx.audit.error, protocol::gateway_error_text(e, {bound}));
        EXPECT_FALSE(ctx.answer.response);
    }
};

TEST_F(session_admission_rig, an_admitted_open_returns_its_session_and_counts_nothing) {
    limits(10, 5);
    held_by(alice, 1);
    auto id = open_as(alice);
    ASSERT_TRUE(id);
    EXPECT_EQ(id->size(), 32u); // 128 random bits in hex
    EXPECT_TRUE(table.contains(*id));
    EXPECT_TRUE(owned_by(table, *id, principal_key(alice)));
    EXPECT_EQ(table.capabilities(*id), (json::object{{"roots", json::object{}}}));
    EXPECT_EQ(table.held_by(share_holder(alice, {})), 2u);
    EXPECT_TRUE(services.told.empty());
    EXPECT_FALSE(ctx.answer.refusal_reply);
    EXPECT_FALSE(ctx.audit.error);
}

TEST_F(session_admission_rig, a_caller_at_its_share_gives_up_its_least_recently_used_idle_one) {
    limits(10, 2);
    auto oldest = held_by(alice, 1);
    auto newer = held_by(alice, 2);
    held_by(bob, 0); // older than both, but another caller's: not alice's to give up
    auto id = open_as(alice);
    ASSERT_TRUE(id);
    EXPECT_EQ(services.told,
              (std::vector<std::string>{
                  "eviction " + std::string(share_reason_label(share_reason::caller_share)),
                  "end_everywhere " + oldest}));
    EXPECT_EQ(share_reason_label(share_reason::caller_share), "principal_share");
    EXPECT_FALSE(table.contains(oldest));
    EXPECT_TRUE(table.contains(newer));
    EXPECT_TRUE(table.contains(*id));
    EXPECT_EQ(table.held_by(share_holder(alice, {})), 2u);
    EXPECT_FALSE(ctx.answer.refusal_reply);
}

TEST_F(session_admission_rig, a_used_session_is_not_the_least_recently_used) {
    limits(10, 2);
    auto first = held_by(alice, 1);
    auto second = held_by(alice, 2);
    table.touch(first, earlier + std::chrono::minutes(3));
    ASSERT_TRUE(open_as(alice));
    EXPECT_EQ(services.told.back(), "end_everywhere " + second);
    EXPECT_TRUE(table.contains(first));
}

TEST_F(session_admission_rig, a_caller_whose_share_is_in_use_is_refused_429_retry_after_10) {
    limits(10, 2);
    auto a1 = held_by(alice, 1);
    auto a2 = held_by(alice, 2);
    auto busy1 = table.call_on(a1);
    auto busy2 = table.call_on(a2);
    EXPECT_FALSE(open_as(alice));
    EXPECT_EQ(services.told, (std::vector<std::string>{"refusal principal_share"}));
    expect_refusal(gateway_error::caller_sessions_full, 429, "10", "2");
    EXPECT_TRUE(table.contains(a1));
    EXPECT_TRUE(table.contains(a2));
    EXPECT_EQ(table.size(), 2u);
}

TEST_F(session_admission_rig, a_full_table_in_use_is_refused_503_retry_after_60) {
    limits(2, 2);
    auto b1 = held_by(bob, 1);
    auto b2 = held_by(bob, 2);
    auto busy1 = table.call_on(b1);
    auto busy2 = table.call_on(b2);
    EXPECT_FALSE(open_as(alice));
    EXPECT_EQ(services.told, (std::vector<std::string>{"refusal table_full"}));
    expect_refusal(gateway_error::sessions_full, 503, "60", "2");
    EXPECT_EQ(table.size(), 2u);
}

TEST_F(session_admission_rig, a_full_table_ends_an_idle_session_of_who_holds_the_most) {
    limits(3, 3);
    auto b1 = held_by(bob, 1);
    held_by(bob, 2);
    held_by(alice, 0);
    auto id = open_as(alice);
    ASSERT_TRUE(id);
    EXPECT_EQ(services.told,
              (std::vector<std::string>{"eviction table_full", "end_everywhere " + b1}));
    EXPECT_FALSE(table.contains(b1));
}

TEST_F(session_admission_rig, an_admission_made_elsewhere_follows_the_same_rules) {
    limits(10, 1);
    auto mine = held_by(alice, 1);
    auto opening = [&] {
        return session_table::opening{
            "2025-11-25", {}, principal_key(alice), alice, share_holder(alice, {})};
    };
    // The fleet's session, adopted here: alice's idle one makes room.
    EXPECT_TRUE(admission.admitted(table.adopt("fleet-1", opening(), clock::now())));
    EXPECT_EQ(services.told,
              (std::vector<std::string>{"eviction principal_share", "end_everywhere " + mine}));
    EXPECT_TRUE(table.contains("fleet-1"));
    EXPECT_FALSE(table.contains(mine));
    // Another while that one is in use: refused, counted, and nothing answered here.
    services.told.clear();
    auto busy = table.call_on("fleet-1");
    EXPECT_FALSE(admission.admitted(table.adopt("fleet-2", opening(), clock::now())));
    EXPECT_EQ(services.told, (std::vector<std::string>{"refusal principal_share"}));
    EXPECT_FALSE(table.contains("fleet-2"));
    EXPECT_FALSE(ctx.answer.refusal_reply);
    EXPECT_FALSE(ctx.audit.error);
}

} // namespace
} // namespace gate::gateway
