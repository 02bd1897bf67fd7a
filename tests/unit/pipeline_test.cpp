#include "gateway/pipeline/stages.hpp"

#include <gtest/gtest.h>

using namespace gate::gateway;

// The order is the spec's invariant: authentication before rate limiting, routing before
// authorization, audit last.
TEST(pipeline, order_is_the_spec_order) {
    std::vector<std::string_view> names;
    for (auto s : pipeline_order)
        names.push_back(stage_name(s));
    EXPECT_EQ(names, (std::vector<std::string_view>{"host_origin", "authenticate", "global_limit",
                                                    "route", "authorize", "upstream_guards",
                                                    "proxy", "egress", "audit"}));
}
