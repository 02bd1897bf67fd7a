// Each user's tokens at each user-account upstream (gateway/accounts/account_vault), with time
// passed in: fresh, due for refresh, expired; forgotten one, per principal, per upstream;
// bounded; listed without a token.
#include "gateway/accounts/account_vault.hpp"

#include <gtest/gtest.h>

using namespace gate::gateway::accounts;
using namespace std::chrono_literals;

namespace {

const auto t0 = wall_clock::time_point(std::chrono::seconds(1'800'000'000));

account_tokens tokens(std::string access, wall_clock::time_point expires,
                      wall_clock::time_point connected = t0) {
    auto refresh = "refresh-" + access;
    return {std::move(access), std::move(refresh), expires, "files:read", connected, {}};
}

} // namespace

TEST(account_vault, a_token_is_fresh_then_due_a_minute_before_expiry_then_expired) {
    account_vault v;
    v.keep("files", "iss\nalice", tokens("a1", t0 + 10min));
    auto fresh = v.find("files", "iss\nalice", t0);
    ASSERT_EQ(fresh.what, account_vault::standing::fresh);
    EXPECT_EQ(*fresh.line, "Authorization: Bearer a1");
    EXPECT_EQ(v.find("files", "iss\nalice", t0 + 9min).what, account_vault::standing::due);
    auto expired = v.find("files", "iss\nalice", t0 + 10min);
    EXPECT_EQ(expired.what, account_vault::standing::expired);
    EXPECT_EQ(expired.line, nullptr);
    EXPECT_EQ(expired.tokens->refresh_token, "refresh-a1");
}

TEST(account_vault, one_principals_token_is_never_anothers_or_another_upstreams) {
    account_vault v;
    v.keep("files", "iss\nalice", tokens("a1", wall_clock::time_point::max()));
    EXPECT_EQ(v.find("files", "iss\nbob", t0).what, account_vault::standing::none);
    EXPECT_EQ(v.find("mail", "iss\nalice", t0).what, account_vault::standing::none);
    EXPECT_EQ(v.find("files", "other\nalice", t0).what, account_vault::standing::none);
    EXPECT_EQ(v.find("files", "iss\nalice", t0 + 1000h).what, account_vault::standing::fresh);
    // Named by issuer and subject apart: the same entry, and only it.
    EXPECT_EQ(v.find("files", "iss", "alice", t0).what, account_vault::standing::fresh);
    EXPECT_EQ(v.find("files", "iss", "alice", t0).line, v.find("files", "iss\nalice", t0).line);
    EXPECT_EQ(v.find("files", "iss\nalice", "", t0).what, account_vault::standing::none);
    EXPECT_EQ(v.find("files", "is", "s\nalice", t0).what, account_vault::standing::none);
}

TEST(account_vault, a_fresh_line_is_copied_out_and_only_while_fresh) {
    account_vault v;
    v.keep("files", "iss\nalice", tokens("a1", t0 + 10min));
    EXPECT_EQ(v.fresh_line("files", "iss", "alice", t0), "Authorization: Bearer a1");
    EXPECT_EQ(v.fresh_line("files", "iss", "alice", t0 + 9min), std::nullopt) << "due: the keeper";
    EXPECT_EQ(v.fresh_line("files", "iss", "alice", t0 + 10min), std::nullopt) << "expired";
    EXPECT_EQ(v.fresh_line("files", "iss", "bob", t0), std::nullopt);
    auto copied = v.fresh_line("files", "iss", "alice", t0);
    v.forget("files", "iss\nalice");
    EXPECT_EQ(copied, "Authorization: Bearer a1") << "a copy outlives the entry";
    EXPECT_EQ(v.fresh_line("files", "iss", "alice", t0), std::nullopt);
}

TEST(account_vault, forgetting_one_a_principals_or_an_upstreams) {
    account_vault v;
    v.keep("files", "iss\nalice", tokens("a1", t0 + 1h));
    v.keep("mail", "iss\nalice", tokens("a2", t0 + 1h));
    v.keep("files", "iss\nbob", tokens("b1", t0 + 1h));
    auto taken = v.forget("mail", "iss\nalice");
    ASSERT_TRUE(taken); // the tokens come out, for a revocation at their server
    EXPECT_EQ(taken->access_token, "a2");
    EXPECT_FALSE(v.forget("mail", "iss\nalice"));
    auto files = v.forget_where("files", "");
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files[0].upstream, "files");
    EXPECT_NE(files[0].tokens.access_token, files[1].tokens.access_token);
    EXPECT_EQ(v.size(), 0u);
    v.keep("files", "iss\nalice", tokens("a1", t0 + 1h));
    v.keep("mail", "iss\nbob", tokens("b2", t0 + 1h));
    v.keep("files", "iss\nbob", tokens("b1", t0 + 1h));
    auto bob = account_vault::digest_of("iss\nbob");
    EXPECT_EQ(bob.size(), 32u);
    EXPECT_NE(bob, account_vault::digest_of("iss\nalice"));
    EXPECT_EQ(v.forget_where("mail", account_vault::digest_of("iss\nalice")).size(), 0u);
    auto bobs_mail = v.forget_where("mail", bob);
    ASSERT_EQ(bobs_mail.size(), 1u);
    EXPECT_EQ(bobs_mail[0].principal, "iss\nbob");
    EXPECT_EQ(bobs_mail[0].tokens.access_token, "b2");
    EXPECT_EQ(v.forget_where("", bob).size(), 1u);
    ASSERT_EQ(v.connections("").size(), 1u);
    EXPECT_EQ(v.connections("")[0].principal, "iss\nalice");
    EXPECT_EQ(v.forget_where("", "").size(),
              1u); // every connection: an upstream-wide and fleet-wide call
    EXPECT_EQ(v.size(), 0u);
}

TEST(account_vault, full_it_lets_the_oldest_connection_go) {
    account_vault v(2);
    v.keep("files", "iss\nalice", tokens("a", t0 + 1h, t0 + 2s));
    v.keep("files", "iss\nbob", tokens("b", t0 + 1h, t0 + 1s));
    v.keep("files", "iss\nalice", tokens("a2", t0 + 1h, t0 + 3s)); // a replacement: nobody goes
    EXPECT_EQ(v.size(), 2u);
    v.keep("files", "iss\ncarol", tokens("c", t0 + 1h, t0 + 4s));
    EXPECT_EQ(v.find("files", "iss\nbob", t0).what, account_vault::standing::none);
    EXPECT_EQ(*v.find("files", "iss\nalice", t0).line, "Authorization: Bearer a2");
}

TEST(account_vault, a_listing_shows_connections_and_never_a_token) {
    account_vault v;
    v.keep("mail", "iss\nalice", tokens("secret-access", t0 + 1h));
    v.keep("files", "iss\nalice", {"secret-2", "", t0 + 1h, "x", t0, {}});
    v.keep("files", "iss\nbob", tokens("secret-3", t0 + 1h));
    auto mine = v.connections("iss\nalice");
    ASSERT_EQ(mine.size(), 2u);
    EXPECT_EQ(mine[0].upstream, "files");
    EXPECT_FALSE(mine[0].refreshable);
    EXPECT_EQ(mine[1].upstream, "mail");
    EXPECT_TRUE(mine[1].refreshable);
    EXPECT_EQ(mine[1].scope, "files:read");
}
