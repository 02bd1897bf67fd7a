// The gateway's error answers (gateway/pipeline/answers): each form written from its row, and
// what a refusal leaves on the request for the audit and the metrics.
#include "gateway/pipeline/answers.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace gate::gateway {
namespace {

namespace json = boost::json;
using protocol::outcome;

json::object body_of(const transport::http_reply& r) {
    return json::parse(r.body).as_object();
}

TEST(answers, a_json_rpc_row_with_a_status_answers_a_json_rpc_error_under_the_id) {
    auto r = error_reply({gateway_error::session_unknown,
                          protocol::gateway_error_text(gateway_error::session_unknown), 4});
    EXPECT_EQ(static_cast<int>(r.status), 404);
    EXPECT_EQ(r.content_type, "application/json");
    auto b = body_of(r);
    EXPECT_EQ(b.at("jsonrpc"), "2.0");
    EXPECT_EQ(b.at("id"), 4);
    EXPECT_EQ(b.at("error").at("code"), -32600);
    EXPECT_EQ(b.at("error").at("message"), "unknown or expired session: initialize a new one");
}

TEST(answers, data_rides_beside_the_message) {
    auto r = error_reply({gateway_error::unsupported_version_modern,
                          "old",
                          1,
                          {},
                          protocol::client_era::modern,
                          json::object{{"supported", "x"}}});
    EXPECT_EQ(body_of(r).at("error").at("data").at("supported"), "x");
}

TEST(answers, a_plain_refusal_is_an_error_member) {
    auto r = error_reply({gateway_error::not_found, "not found"});
    EXPECT_EQ(static_cast<int>(r.status), 404);
    EXPECT_EQ(r.body, R"({"error":"not found"})");
}

TEST(answers, a_described_refusal_names_its_code_and_describes_it) {
    auto r =
        error_reply({gateway_error::unauthenticated, "token expired", nullptr, "invalid_token"});
    EXPECT_EQ(static_cast<int>(r.status), 401);
    auto b = body_of(r);
    EXPECT_EQ(b.at("error"), "invalid_token");
    EXPECT_EQ(b.at("error_description"), "token expired");
    auto tenant = error_reply({gateway_error::ambiguous_tenant, "both"});
    EXPECT_EQ(body_of(tenant).at("error"), "ambiguous_tenant") << "the row's name by default";
}

TEST(answers, a_refusal_at_http_200_is_the_response_with_the_rows_outcome) {
    request_context ctx;
    ctx.message.id = 9;
    ctx.method = "tools/call";
    ctx.answer.verbatim = "stale";
    refuse(ctx, gateway_error::policy_denied, {"tools/call of x on b"});
    ASSERT_TRUE(ctx.answer.response);
    EXPECT_FALSE(ctx.answer.refusal_reply);
    EXPECT_TRUE(ctx.answer.verbatim.empty()) << "the refusal replaces what was to be sent";
    EXPECT_EQ(ctx.answer.response->at("id"), 9);
    EXPECT_EQ(ctx.answer.response->at("error").at("code"), -32042);
    EXPECT_EQ(ctx.audit.outcome, outcome::denied);
    EXPECT_EQ(ctx.audit.error, "policy denied tools/call of x on b");
    EXPECT_EQ(ctx.method, "tools/call");
    EXPECT_FALSE(ctx.answer.rejection);
}

TEST(answers, a_refusal_before_mcp_is_an_http_rejection_counted_under_its_label) {
    request_context ctx;
    ctx.method = "tools/call";
    refuse(ctx, gateway_error::unsupported_media_type);
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_FALSE(ctx.answer.response);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 415);
    EXPECT_EQ(ctx.method, "http");
    EXPECT_EQ(ctx.answer.rejection, "unsupported_media_type");
    EXPECT_EQ(ctx.audit.outcome, outcome::error);
}

TEST(answers, a_json_rpc_refusal_with_a_status_keeps_the_method_and_counts_no_rejection) {
    request_context ctx;
    ctx.method = "tools/list";
    ctx.message.id = "a";
    refuse(ctx, gateway_error::caller_sessions_full, {"1000"});
    ASSERT_TRUE(ctx.answer.refusal_reply);
    EXPECT_EQ(static_cast<int>(ctx.answer.refusal_reply->status), 429);
    EXPECT_EQ(body_of(*ctx.answer.refusal_reply).at("id"), "a");
    EXPECT_EQ(ctx.method, "tools/list");
    EXPECT_FALSE(ctx.answer.rejection);
    EXPECT_EQ(ctx.audit.outcome, outcome::rate_limited);
}

TEST(answers, a_returned_refusal_sets_the_outcome_and_the_text) {
    request_context ctx;
    auto answer = refusal(ctx, 3, gateway_error::all_upstreams_down);
    EXPECT_EQ(answer.at("error").at("code"), -32041);
    EXPECT_EQ(ctx.audit.outcome, outcome::upstream_down);
    EXPECT_EQ(ctx.audit.error, "all upstreams are unavailable");
    EXPECT_FALSE(ctx.answer.response) << "the caller decides where the answer goes";
}

// A detail comes from the caller (a tool's name, a session id, a header): whatever it holds,
// each form carries it as one JSON string, escaped, never as structure or as a second line.
TEST(answers, a_hostile_detail_stays_one_escaped_string_in_every_form) {
    const std::string hostile =
        "x\"}, \"injected\": 1, \"y\": \"\r\nSet-Cookie: a=b\x01\x1b[31m</script>";
    auto text = protocol::gateway_error_text(gateway_error::policy_denied, {hostile});
    EXPECT_NE(text.find(hostile), std::string::npos) << "the detail kept whole";
    for (auto e : {gateway_error::unsupported_version, gateway_error::global_rate_limited,
                   gateway_error::unauthenticated}) {
        auto r = error_reply({e, protocol::gateway_error_text(e, {hostile}), 3});
        EXPECT_EQ(r.body.find('\n'), std::string::npos) << protocol::describe(e).name;
        EXPECT_EQ(r.body.find('\x01'), std::string::npos) << protocol::describe(e).name;
        auto b = body_of(r);
        EXPECT_FALSE(b.contains("injected")) << protocol::describe(e).name;
        auto& carried = protocol::describe(e).form == protocol::answer_form::json_rpc
                            ? b.at("error").at("message")
                        : protocol::describe(e).form == protocol::answer_form::plain
                            ? b.at("error")
                            : b.at("error_description");
        EXPECT_NE(std::string_view(carried.as_string()).find(hostile), std::string_view::npos)
            << protocol::describe(e).name;
        for (const auto& [name, value] : r.headers) {
            EXPECT_EQ(value.find('\n'), std::string::npos) << name;
            EXPECT_EQ(value.find('\r'), std::string::npos) << name;
        }
    }
}

} // namespace
} // namespace gate::gateway
