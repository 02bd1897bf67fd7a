// policy.decisionHook as the document states it: every field read into the model, and each
// wrong value refused at its pointer with a reason.
#include "config/load.hpp"

#include <gtest/gtest.h>

namespace gate::config {
namespace decision_hook_config_test {

std::string with_hook(std::string_view hook) {
    return R"({"upstreams":[{"id":"alpha","url":"http://127.0.0.1:3001/mcp","namespace":"a"}],
               "policy":{"rules":[{"id":"all","allow":[{"server":"alpha"}]}],
                         "decisionHook":)" +
           std::string(hook) + "}}";
}

std::string dump(const std::vector<error>& errors) {
    std::string out;
    for (const auto& e : errors)
        out += "  " + e.pointer + ": " + e.reason + "\n";
    return out;
}

void expect_error(std::string_view hook, const std::string& pointer, std::string_view needle) {
    auto r = parse(with_hook(hook), acceptance::specification);
    EXPECT_EQ(r.doc, nullptr);
    bool found = false;
    for (const auto& e : r.errors)
        found = found || (e.pointer == pointer && e.reason.find(needle) != std::string::npos);
    EXPECT_TRUE(found) << hook << "\nwanted " << pointer << ": ..." << needle << "...\ngot:\n"
                       << dump(r.errors);
}

TEST(ConfigDecisionHook, EveryFieldIsReadIntoTheModel) {
    auto r = parse(with_hook(R"({"url":"https://opa.example/decide","bearerSecretRef":"HOOK_TOKEN",
        "timeoutMs":250,"onError":"allow","stages":["result","serverRequest"],
        "include":["arguments","result"],"maxConcurrent":3,"cacheTtlMs":5000})"),
                   acceptance::specification);
    ASSERT_NE(r.doc, nullptr) << dump(r.errors);
    const auto& h = r.doc->policy->decision_hook;
    ASSERT_TRUE(h);
    EXPECT_EQ(h->url, "https://opa.example/decide");
    EXPECT_EQ(h->bearer_secret_ref, "HOOK_TOKEN");
    EXPECT_EQ(h->timeout_ms, 250);
    EXPECT_EQ(h->on_error, "allow");
    EXPECT_FALSE(h->at_call);
    EXPECT_TRUE(h->at_result);
    EXPECT_TRUE(h->at_server_request);
    EXPECT_TRUE(h->send_arguments);
    EXPECT_TRUE(h->send_result);
    EXPECT_EQ(h->max_concurrent, 3);
    EXPECT_EQ(h->cache_ttl_ms, 5000);
}

TEST(ConfigDecisionHook, DefaultsAskBeforeCallsDenyOnErrorAndSendNoContent) {
    auto r =
        parse(with_hook(R"({"url":"http://127.0.0.1:8181/decide"})"), acceptance::specification);
    ASSERT_NE(r.doc, nullptr) << dump(r.errors);
    const auto& h = *r.doc->policy->decision_hook;
    EXPECT_EQ(h.timeout_ms, 1000);
    EXPECT_EQ(h.on_error, "deny");
    EXPECT_TRUE(h.at_call);
    EXPECT_FALSE(h.at_result || h.at_server_request || h.send_arguments || h.send_result);
    EXPECT_EQ(h.max_concurrent, 64);
    EXPECT_EQ(h.cache_ttl_ms, 0);
}

TEST(ConfigDecisionHook, EachWrongValueIsRefusedWhereItIs) {
    expect_error("{}", "/policy/decisionHook/url", "URL");
    expect_error(R"({"url":"http://opa.example/decide"})", "/policy/decisionHook/url", "https");
    expect_error(R"({"url":"ftp://127.0.0.1/x"})", "/policy/decisionHook/url", "");
    expect_error(R"({"url":"http://127.0.0.1/x","bearerSecretRef":"not a name"})",
                 "/policy/decisionHook/bearerSecretRef", "environment variable");
    expect_error(R"({"url":"http://127.0.0.1/x","timeoutMs":0})", "/policy/decisionHook/timeoutMs",
                 "between 1 and 60000");
    expect_error(R"({"url":"http://127.0.0.1/x","timeoutMs":60001})",
                 "/policy/decisionHook/timeoutMs", "between 1 and 60000");
    expect_error(R"({"url":"http://127.0.0.1/x","onError":"retry"})",
                 "/policy/decisionHook/onError", "");
    expect_error(R"({"url":"http://127.0.0.1/x","stages":[]})", "/policy/decisionHook/stages",
                 "at least one");
    expect_error(R"({"url":"http://127.0.0.1/x","stages":["call","egress"]})",
                 "/policy/decisionHook/stages/1", "is not one of");
    expect_error(R"({"url":"http://127.0.0.1/x","stages":["call","call"]})",
                 "/policy/decisionHook/stages/1", "twice");
    expect_error(R"({"url":"http://127.0.0.1/x","include":["headers"]})",
                 "/policy/decisionHook/include/0", "is not one of");
    expect_error(R"({"url":"http://127.0.0.1/x","include":["result"]})",
                 "/policy/decisionHook/include", "\"result\" stage");
    expect_error(R"({"url":"http://127.0.0.1/x","maxConcurrent":0})",
                 "/policy/decisionHook/maxConcurrent", "between 1 and 10000");
    expect_error(R"({"url":"http://127.0.0.1/x","cacheTtlMs":-1})",
                 "/policy/decisionHook/cacheTtlMs", "between 0 and 3600000");
    expect_error(R"({"url":"http://127.0.0.1/x","allowOnTimeout":true})",
                 "/policy/decisionHook/allowOnTimeout", "");
    expect_error(R"("http://127.0.0.1/x")", "/policy/decisionHook", "");
}

} // namespace decision_hook_config_test
} // namespace gate::config
