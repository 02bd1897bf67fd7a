// JSON for people: decimals the shortest way that reads back the same, everything else as
// Boost.JSON writes it.
#include "protocol/json_text.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using gate::protocol::json_text;

TEST(JsonText, DecimalsAreWrittenAsPeopleWriteThem) {
    boost::json::object o{{"latencyMs", 8.4}, {"n", 3}, {"big", 1e21}, {"tiny", 0.000125}};
    EXPECT_EQ(json_text(o), R"({"latencyMs":8.4,"n":3,"big":1e+21,"tiny":0.000125})");
    EXPECT_EQ(json_text(boost::json::value(-0.5)), "-0.5");
    EXPECT_EQ(json_text(boost::json::value(2.0)), "2");
}

TEST(JsonText, EverythingElseReadsBackTheSame) {
    auto text = R"({"a":[1,-2,18446744073709551615,true,null,"q\"\n\u0001"],"b":{"c":{}},"d":[]})";
    auto v = boost::json::parse(text);
    EXPECT_EQ(boost::json::parse(json_text(v)), v);
    EXPECT_EQ(json_text(v), text);
}

TEST(JsonText, ANumberJsonCannotHoldIsNull) {
    EXPECT_EQ(json_text(boost::json::value(std::numeric_limits<double>::infinity())), "null");
    EXPECT_EQ(json_text(boost::json::value(std::nan(""))), "null");
}
