// Pinned definitions: the digest of what a client and a model see of a tool (member order
// aside), the pins (first seen, or the lock file's; a change told once per digest), and the
// lock file as the configuration reads it.
#include "config/load.hpp"
#include "policy/definition_pins.hpp"
#include "protocol/tool_definition.hpp"

#include <boost/json/parse.hpp>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace gate;

namespace definition_pins_test {

namespace json = boost::json;

std::string digest(std::string_view tool) {
    return protocol::definition_digest(json::parse(tool).as_object());
}

TEST(DefinitionPins, TheDigestCoversWhatClientsSeeAndNotMemberOrder) {
    auto d =
        digest(R"({"name":"t","description":"d","inputSchema":{"type":"object","a":1,"b":2}})");
    EXPECT_EQ(d.size(), 7u + 64u);
    EXPECT_EQ(d.substr(0, 7), "sha256:");
    EXPECT_EQ(
        d, digest(R"({"inputSchema":{"b":2,"type":"object","a":1},"description":"d","name":"t"})"));
    EXPECT_NE(
        d,
        digest(R"({"name":"t","description":"d2","inputSchema":{"type":"object","a":1,"b":2}})"));
    EXPECT_NE(
        d, digest(R"({"name":"t","description":"d","inputSchema":{"type":"object","a":1,"b":3}})"));
    // What a client does not see of it (its _meta, icons) is not pinned.
    EXPECT_EQ(
        d,
        digest(
            R"({"name":"t","description":"d","inputSchema":{"type":"object","a":1,"b":2},"_meta":{"x":1}})"));
    EXPECT_NE(digest(R"({"name":"t"})"),
              digest(R"({"name":"t","annotations":{"readOnlyHint":true}})"));
}

TEST(DefinitionPins, TheFirstSeenIsPinnedAndAChangeIsToldOncePerDigest) {
    gate::policy::definition_pins pins;
    EXPECT_FALSE(pins.judge("up", "t", "sha256:a"));
    EXPECT_FALSE(pins.judge("up", "t", "sha256:a"));
    auto changed = pins.judge("up", "t", "sha256:b");
    ASSERT_TRUE(changed);
    EXPECT_EQ(changed->pinned, "sha256:a");
    EXPECT_EQ(changed->seen, "sha256:b");
    EXPECT_FALSE(changed->reported);
    EXPECT_TRUE(pins.judge("up", "t", "sha256:b")->reported);
    EXPECT_FALSE(pins.judge("other", "t", "sha256:b")); // another upstream's own pin
    EXPECT_FALSE(pins.judge("up", "t", "sha256:a"));    // back as pinned
}

TEST(DefinitionPins, EachUpstreamHasItsOwnBoundAndPastItToolsAreUnpinnableChanges) {
    gate::policy::definition_pins pins;
    const auto bound = gate::policy::definition_pins::max_pins_per_upstream;
    for (std::size_t i = 0; i < bound; ++i)
        ASSERT_FALSE(pins.judge("junk", "t" + std::to_string(i), "sha256:j"));
    // Full: a new tool has no pin and is judged changed, told once for the upstream.
    auto first = pins.judge("junk", "past", "sha256:p");
    ASSERT_TRUE(first);
    EXPECT_TRUE(first->unpinnable);
    EXPECT_FALSE(first->reported);
    auto second = pins.judge("junk", "past-2", "sha256:q");
    ASSERT_TRUE(second);
    EXPECT_TRUE(second->unpinnable && second->reported);
    EXPECT_FALSE(pins.judge("junk", "t7", "sha256:j")); // what it pinned stays pinned
    // Another upstream pins as before: the junk filled only its own.
    EXPECT_FALSE(pins.judge("good", "t", "sha256:a"));
    auto rug_pull = pins.judge("good", "t", "sha256:b");
    ASSERT_TRUE(rug_pull);
    EXPECT_FALSE(rug_pull->unpinnable);
    EXPECT_EQ(rug_pull->pinned, "sha256:a");
    // Nor does the fleet's store get asked of a tool the full upstream cannot pin.
    const gate::policy::definition_pins::clock::time_point now{};
    EXPECT_FALSE(pins.to_share("junk", "past", "sha256:p", now));
    EXPECT_FALSE(pins.pin_shared("junk", "past", "sha256:" + std::string(64, 'a'), now));
}

TEST(DefinitionPins, WithALockFileItsDigestsAreThePinsAndNewToolsAreChanges) {
    gate::policy::definition_pins pins;
    pins.judge("up", "t", "sha256:first");
    pins.use_lock(gate::policy::definition_pins::lock_map{{"up", {{"t", "sha256:locked"}}}});
    EXPECT_FALSE(pins.judge("up", "t", "sha256:locked"));
    EXPECT_EQ(pins.judge("up", "t", "sha256:first")->pinned, "sha256:locked");
    auto fresh = pins.judge("up", "new", "sha256:n");
    ASSERT_TRUE(fresh);
    EXPECT_TRUE(fresh->pinned.empty()); // not in the lock file
    pins.use_lock(std::nullopt);        // the first-seen pins are kept
    EXPECT_FALSE(pins.judge("up", "t", "sha256:first"));
}

TEST(DefinitionPins, AFleetsStorePinsTheFirstAnyInstanceSawForEveryInstance) {
    using namespace std::chrono_literals;
    const gate::policy::definition_pins::clock::time_point t0{100h};
    const std::string v1 = "sha256:" + std::string(64, '1'), v2 = "sha256:" + std::string(64, '2');
    // Instance A saw v1 first and offered it; B, fresh, lists v2 and offers v2.
    gate::policy::definition_pins a, b;
    EXPECT_EQ(a.to_share("up", "t", v1, t0), v1);
    EXPECT_TRUE(a.pin_shared("up", "t", v1, t0)); // the store took A's
    EXPECT_FALSE(a.judge("up", "t", v1));
    EXPECT_EQ(b.to_share("up", "t", v2, t0), v2);
    EXPECT_TRUE(b.pin_shared("up", "t", v1, t0)); // the store holds A's: B's pin too
    auto changed = b.judge("up", "t", v2);
    ASSERT_TRUE(changed);
    EXPECT_EQ(changed->pinned, v1);
    EXPECT_EQ(changed->seen, v2);
    EXPECT_FALSE(changed->reported);
    // Agreed: not asked again within the interval, then asked again offering what it lists
    // (the store keeps v1; had an operator deleted it to accept the change, v2 is the pin).
    EXPECT_FALSE(
        b.to_share("up", "t", v2, t0 + gate::policy::definition_pins::share_interval - 1s));
    EXPECT_EQ(b.to_share("up", "t", v2, t0 + gate::policy::definition_pins::share_interval), v2);
    EXPECT_TRUE(b.pin_shared("up", "t", v2, t0 + gate::policy::definition_pins::share_interval));
    EXPECT_FALSE(b.judge("up", "t", v2));
}

TEST(DefinitionPins, WhileTheStoreIsDownTheOwnFirstSeenStandsInUntilItAnswers) {
    using namespace std::chrono_literals;
    const gate::policy::definition_pins::clock::time_point t0{100h};
    const std::string v1 = "sha256:" + std::string(64, '1'), v2 = "sha256:" + std::string(64, '2');
    gate::policy::definition_pins b;
    EXPECT_FALSE(b.judge("up", "t", v2)); // no answer: its own first seen is the pin
    // Not agreed: asked at the next list at once.
    EXPECT_EQ(b.to_share("up", "t", v2, t0), v2);
    EXPECT_TRUE(b.pin_shared("up", "t", v1, t0 + 1s)); // the store answers: another's was first
    EXPECT_EQ(b.judge("up", "t", v2)->pinned, v1);
    // What is not a digest (a key written by something else) pins nothing and is asked again.
    EXPECT_FALSE(b.pin_shared("up", "u", "garbage\nline", t0));
    EXPECT_FALSE(b.pin_shared("up", "u", "sha256:" + std::string(64, 'G'), t0));
    EXPECT_EQ(b.to_share("up", "u", v1, t0), v1);
    EXPECT_FALSE(b.judge("up", "u", v1));
}

TEST(DefinitionPins, ALockFileWinsOverTheSharedPins) {
    using namespace std::chrono_literals;
    const gate::policy::definition_pins::clock::time_point t0{100h};
    const std::string v1 = "sha256:" + std::string(64, '1'), v2 = "sha256:" + std::string(64, '2');
    gate::policy::definition_pins pins;
    pins.use_lock(gate::policy::definition_pins::lock_map{{"up", {{"t", v2}}}});
    EXPECT_FALSE(pins.to_share("up", "t", v2, t0)); // the store is not asked
    pins.pin_shared("up", "t", v1, t0);             // an answer landing after a reload
    EXPECT_FALSE(pins.judge("up", "t", v2));        // the lock file's digest decides
    EXPECT_EQ(pins.judge("up", "t", v1)->pinned, v2);
}

TEST(DefinitionPins, ALockFileIsReadWithTheDocumentAndRefusedWhereItIsWrong) {
    auto dir = std::filesystem::temp_directory_path() / "gate-pins-unit";
    std::filesystem::create_directories(dir);
    auto write = [&](const std::string& text) {
        std::ofstream(dir / "g.lock") << text;
        return config::parse(
            R"({"upstreams":[{"id":"up","url":"http://127.0.0.1:1/mcp"}],
                "definitions":{"pin":"block","lockFile":"g.lock"}})",
            config::acceptance::enforced, dir.string());
    };
    std::string hex(64, 'b');
    auto ok = write("# comment\n\nup t sha256:" + hex + "\r\nup u sha256:" + hex + "\n");
    ASSERT_NE(ok.doc, nullptr) << config::one_line(ok.errors);
    EXPECT_EQ(ok.doc->definitions.lock.at("up").at("t"), "sha256:" + hex);
    EXPECT_EQ(ok.doc->definitions.lock.at("up").size(), 2u);
    auto expect_refused = [&](const std::string& text, std::string_view why) {
        auto r = write(text);
        EXPECT_EQ(r.doc, nullptr);
        ASSERT_FALSE(r.errors.empty());
        EXPECT_EQ(r.errors[0].pointer, "/definitions/lockFile");
        EXPECT_NE(r.errors[0].reason.find(why), std::string::npos) << r.errors[0].reason;
    };
    expect_refused("up t sha256:" + hex + "\nup t\n", "line 2: expected");
    expect_refused("up t sha256:" + std::string(64, 'B') + "\n", "line 1: the digest must be");
    expect_refused("up t sha256:" + hex + "\nup t sha256:" + std::string(64, 'c') + "\n",
                   "locked twice");
    std::filesystem::remove(dir / "g.lock");
    auto missing = config::parse(
        R"({"upstreams":[{"id":"up","url":"http://127.0.0.1:1/mcp"}],
            "definitions":{"lockFile":"g.lock"}})",
        config::acceptance::enforced, dir.string());
    EXPECT_EQ(missing.doc, nullptr);
    std::filesystem::remove_all(dir);
}

} // namespace definition_pins_test
