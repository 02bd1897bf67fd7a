#include "protocol/secret_compare.hpp"
#include "shim/line_splitter.hpp"

#include <gtest/gtest.h>

using gate::shim::line_splitter;
using gate::shim::to_stdio_line;

TEST(LineSplitter, SplitsAcrossReadsAndSkipsBlankLines) {
    line_splitter s(100);
    std::vector<std::string> out;
    EXPECT_TRUE(s.feed("{\"a\":1}\n{\"b\"", out));
    EXPECT_EQ(out, std::vector<std::string>{"{\"a\":1}"});
    EXPECT_TRUE(s.feed(":2}\r\n\n\n{\"c\":3}\n", out));
    EXPECT_EQ(out, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"}));
}

TEST(LineSplitter, ALineOverTheCapStopsTheStream) {
    line_splitter s(8);
    std::vector<std::string> out;
    EXPECT_TRUE(s.feed("12345678\n", out)); // exactly the cap
    EXPECT_FALSE(s.feed("1234", out) && s.feed("56789", out));
    EXPECT_TRUE(s.overflowed());
    EXPECT_FALSE(s.feed("\nok\n", out));
    EXPECT_EQ(out, std::vector<std::string>{"12345678"});
}

TEST(LineSplitter, StdioLinesHaveNoInnerNewlines) {
    auto line = to_stdio_line("{\n  \"jsonrpc\": \"2.0\",\r\n  \"x\": \"a\\nb\"\n}");
    EXPECT_EQ(line, "{   \"jsonrpc\": \"2.0\",    \"x\": \"a\\nb\" }\n");
}

TEST(SecretCompare, EqualOnlyWhenIdentical) {
    using gate::protocol::secrets_equal;
    EXPECT_TRUE(secrets_equal("s3cret", "s3cret"));
    EXPECT_FALSE(secrets_equal("s3cret", "s3cres"));
    EXPECT_FALSE(secrets_equal("s3cre", "s3cret"));
    EXPECT_FALSE(secrets_equal("", "s3cret"));
}
