// A call's cancellation (gateway/upstream/call_cancel.hpp): once, with its reason; the upstream
// told and the exchange closed only while a request of the call is out, in that order; a
// request that goes out after it finds it requested.
#include "gateway/upstream/call_cancel.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using gate::gateway::call_cancel;

TEST(call_cancel, tells_the_upstream_then_closes_the_exchange_once) {
    call_cancel cancel;
    std::vector<std::string> done;
    cancel.telling([&] { done.push_back("told: " + cancel.reason()); });
    cancel.closing([&] { done.push_back("closed"); });
    EXPECT_FALSE(cancel.requested());
    cancel.request("the client closed its stream");
    EXPECT_TRUE(cancel.requested());
    EXPECT_EQ(done, (std::vector<std::string>{"told: the client closed its stream", "closed"}));
    cancel.request("again");
    EXPECT_EQ(cancel.reason(), "the client closed its stream");
    EXPECT_EQ(done.size(), 2u);
}

TEST(call_cancel, nothing_is_told_or_closed_once_the_exchange_ended) {
    call_cancel cancel;
    int ran = 0;
    cancel.telling([&] { ++ran; });
    cancel.closing([&] { ++ran; });
    cancel.off_wire();
    cancel.request("late");
    EXPECT_EQ(ran, 0);
    EXPECT_TRUE(cancel.requested()); // the call's next request is not sent
}

TEST(call_cancel, between_two_exchanges_of_one_request_the_upstream_is_still_told) {
    // An answer's stream resumed with a GET: the POST's exchange ended, the call's request is
    // still out, so a cancellation meanwhile still tells the upstream.
    call_cancel cancel;
    std::vector<std::string> done;
    cancel.telling([&] { done.push_back("told"); });
    cancel.closing([&] { done.push_back("closed the POST"); });
    cancel.not_closing();
    cancel.request("the client closed its stream");
    EXPECT_EQ(done, std::vector<std::string>{"told"});
}
