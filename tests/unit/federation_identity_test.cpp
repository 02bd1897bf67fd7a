// gateway/mcp/federation_identity: the serverInfo and instructions a namespaced federation
// presents (server.info, server.instructions).
#include "gateway/mcp/federation_identity.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

using namespace gate;
using gate::gateway::federation_instructions;
using gate::gateway::upstream_instructions;

TEST(federation_identity, unconfigured_it_is_gate_at_its_version) {
    auto info = gateway::federation_server_info({}, "1.2.3");
    EXPECT_EQ(boost::json::serialize(info), R"({"name":"gate","version":"1.2.3"})");
    EXPECT_FALSE(federation_instructions({}, {{"a", "a__", "from a"}}));
}

TEST(federation_identity, the_configured_info_is_presented_whole) {
    config::federation_info i;
    i.name = "acme-tools";
    i.title = "ACME tools";
    i.website_url = "https://tools.acme.example";
    i.icons.push_back({"data:image/png;base64,iVBO", "image/png", {"48x48"}, "dark"});
    i.icons.push_back({"https://tools.acme.example/i.png", {}, {}, {}});
    auto info = gateway::federation_server_info(i, "1.2.3");
    EXPECT_EQ(
        boost::json::serialize(info),
        R"({"name":"acme-tools","title":"ACME tools","version":"1.2.3",)"
        R"("websiteUrl":"https://tools.acme.example","icons":[{"src":"data:image/png;base64,iVBO",)"
        R"("mimeType":"image/png","sizes":["48x48"],"theme":"dark"},)"
        R"({"src":"https://tools.acme.example/i.png"}]})");
}

TEST(federation_identity, upstreams_instructions_follow_the_text_each_named_and_cleaned) {
    config::federation_instructions cfg{"Use ACME's tools.", true};
    auto text = federation_instructions(cfg, {{"files", "files__", "Read before\twriting.\x1b[2J"},
                                              {"mail", "mail__", ""},
                                              {"tickets", "t__", "Open one per bug."}});
    ASSERT_TRUE(text);
    EXPECT_EQ(*text, "Use ACME's tools.\n\n"
                     "Upstream files (its tools and prompts are named files__...):\n"
                     "Read before\twriting.[2J\n\n"
                     "Upstream tickets (its tools and prompts are named t__...):\n"
                     "Open one per bug.");
    // Without fromUpstreams, only the text.
    cfg.from_upstreams = false;
    EXPECT_EQ(federation_instructions(cfg, {{"files", "files__", "x"}}), "Use ACME's tools.");
    // Only fromUpstreams: the upstreams' alone.
    auto theirs = federation_instructions({{}, true}, {{"files", "files__", "x"}});
    EXPECT_EQ(theirs, "Upstream files (its tools and prompts are named files__...):\nx");
}

TEST(federation_identity, an_upstreams_part_is_cut_at_a_character_and_the_whole_is_bounded) {
    // 2,047 bytes of 'a' then a 3-byte character across the cut: cut before it.
    std::string long_text(2047, 'a');
    long_text += "\xE2\x82\xAC and more";
    auto text = federation_instructions({{}, true}, {{"u", "u__", long_text}});
    ASSERT_TRUE(text);
    auto body = text->substr(text->find(":\n") + 2);
    EXPECT_EQ(body, std::string(2047, 'a') + "\xE2\x80\xA6");
    // Twenty upstreams of 2 KiB: the whole stays within 16 KiB, and says how many are left out.
    std::vector<std::string> texts(20, std::string(3000, 'b'));
    std::vector<upstream_instructions> many;
    for (std::size_t i = 0; i < texts.size(); ++i)
        many.push_back({"u", "u__", texts[i]});
    auto all = federation_instructions({{}, true}, many);
    ASSERT_TRUE(all);
    EXPECT_LE(all->size(), gateway::instructions_bound);
    EXPECT_NE(all->find("13 more upstreams' instructions are left out"), std::string::npos) << *all;
}
