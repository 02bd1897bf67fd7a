#include "hooks/kept_text.hpp"

#include <gtest/gtest.h>

namespace gate::hooks {
namespace {

const std::string fffd = "\xEF\xBF\xBD";

TEST(KeptText, WellFormedTextIsKept) {
    EXPECT_EQ(kept_text("thanks", 4096), "thanks");
    EXPECT_EQ(kept_text("gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x98\x80", 4096),
              "gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x98\x80");
    EXPECT_EQ(kept_text("", 4096), "");
}

TEST(KeptText, IllFormedBytesAndNulBecomeReplacementCharacters) {
    using namespace std::string_literals;
    EXPECT_EQ(kept_text("a\xFF"
                        "b",
                        100),
              "a" + fffd + "b");
    EXPECT_EQ(kept_text("a\0b"s, 100), "a" + fffd + "b");
    EXPECT_EQ(kept_text("\xC0\xAF", 100), fffd + fffd);                       // overlong
    EXPECT_EQ(kept_text("\xED\xA0\x80", 100), fffd + fffd + fffd);            // a surrogate
    EXPECT_EQ(kept_text("\xF4\x90\x80\x80", 100), fffd + fffd + fffd + fffd); // past U+10FFFF
    EXPECT_EQ(kept_text("\xE2\x82", 100), fffd + fffd);                       // cut short
}

TEST(KeptText, CutsAtACharacterBoundary) {
    // "é" is two bytes: a four-byte budget holds "aé" and not half of the next one.
    EXPECT_EQ(kept_text("a\xC3\xA9\xC3\xA9", 4), "a\xC3\xA9");
    EXPECT_EQ(kept_text("abcdef", 3), "abc");
    // A replacement character is three bytes and is not split either.
    EXPECT_EQ(kept_text("ab\xFF", 4), "ab");
}

} // namespace
} // namespace gate::hooks
