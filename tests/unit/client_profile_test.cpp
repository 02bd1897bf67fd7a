#include "protocol/client_profile.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace gate::protocol;
namespace json = boost::json;

namespace {
client_profile of(const char* capabilities) {
    return profile_of(json::parse(capabilities).as_object());
}
} // namespace

TEST(ClientProfile, NamesWhatDecidesListings) {
    EXPECT_EQ(of("{}"), 0);
    EXPECT_EQ(of(R"({"experimental":{},"tasks":{}})"), 0);
    EXPECT_EQ(of(R"({"sampling":{"tools":{}}})"), profile_bit::sampling);
    EXPECT_EQ(of(R"({"roots":{"listChanged":true}})"), profile_bit::roots);
    // An empty elicitation object is form mode (2025-06-18).
    EXPECT_EQ(of(R"({"elicitation":{}})"), profile_bit::elicitation_form);
    EXPECT_EQ(of(R"({"elicitation":{"url":{}}})"), profile_bit::elicitation_url);
    EXPECT_EQ(of(R"({"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{},
        "extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}})"),
              full_profile);
    // Of the extensions, only the one gate knows: the client's own map would split the cache.
    EXPECT_EQ(of(R"({"extensions":{"io.modelcontextprotocol/ui":{},"x.example/y":{}}})"),
              profile_bit::ui);
    EXPECT_EQ(of(R"({"extensions":{"x.example/y":{}}})"), 0);
    // Not an object: not declared.
    EXPECT_EQ(of(R"({"sampling":true,"roots":null})"), 0);
}

TEST(ClientProfile, EveryProfileDeclaresItselfBack) {
    for (client_profile p = 0; p < profile_count; ++p)
        EXPECT_EQ(profile_of(capabilities_of(p)), p) << int(p);
    EXPECT_TRUE(capabilities_of(0).empty());
}

TEST(ClientProfile, SharedCapabilitiesAreOneCopyPerProfile) {
    for (client_profile p = 0; p < profile_count; ++p) {
        const auto& shared = shared_capabilities_of(p);
        ASSERT_TRUE(shared);
        EXPECT_EQ(*shared, capabilities_of(p)) << int(p);
        EXPECT_EQ(shared.get(), shared_capabilities_of(p).get()) << int(p); // not made again
    }
    EXPECT_THROW(shared_capabilities_of(profile_count), std::out_of_range);
}
