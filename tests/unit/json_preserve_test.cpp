#include "protocol/json_preserve.hpp"

#include <boost/json/parse.hpp>
#include <cstring>
#include <gtest/gtest.h>

using namespace gate::protocol;
namespace json = boost::json;

namespace {

// The numbers Boost.JSON 1.81 cannot write back as they were written.
constexpr std::string_view numbers =
    R"({"big":123456789012345678901234567890,"frac":1.00000000000000000001,"neg":-0.0,)"
    R"("exp":1e400,"half":0.50,"minus_zero":-0,"e":1E2,"small":1.5e-400})";

// Both read the same, doubles to the bit.
bool same_bits(const json::value& a, const json::value& b) {
    if (a.kind() != b.kind())
        return false;
    if (a.is_double()) {
        double x = a.get_double(), y = b.get_double();
        return std::memcmp(&x, &y, sizeof x) == 0;
    }
    if (a.is_object()) {
        const auto &x = a.get_object(), &y = b.get_object();
        if (x.size() != y.size())
            return false;
        for (const auto& [k, v] : x)
            if (!y.contains(k) || !same_bits(v, y.at(k)))
                return false;
        return true;
    }
    if (a.is_array()) {
        const auto &x = a.get_array(), &y = b.get_array();
        if (x.size() != y.size())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!same_bits(x[i], y[i]))
                return false;
        return true;
    }
    return a == b;
}

} // namespace

TEST(json_preserve, an_unchanged_value_is_its_text_byte_for_byte) {
    for (std::string_view text : {numbers, std::string_view(R"( { "a" : [ 1 , 2.0 , "x\u00e9\n" ] ,
                                     "b" : { } , "c" : [ ] , "d" : null , "e" : true } )"),
                                  std::string_view(R"("\ud83d\ude00")"), std::string_view("-0"),
                                  std::string_view("[1e400,-1e400]")}) {
        auto v = json::parse(text);
        EXPECT_TRUE(reads_as(v, text)) << text;
        auto begin = text.find_first_not_of(" \n");
        auto end = text.find_last_not_of(" \n") + 1;
        EXPECT_EQ(serialize_preserving(v, text), text.substr(begin, end - begin));
    }
}

TEST(json_preserve, a_rewritten_name_leaves_the_arguments_as_written) {
    std::string text = R"({"name":"alpha__echo","arguments":)" + std::string(numbers) + "}";
    auto v = json::parse(text);
    v.as_object()["name"] = "echo";
    EXPECT_EQ(serialize_preserving(v, text),
              R"({"name":"echo","arguments":)" + std::string(numbers) + "}");
}

TEST(json_preserve, an_added_member_is_written_and_the_rest_copied) {
    std::string text = R"({"arguments": {"n": 1.10}, "_meta": {"progressToken": 7, "x": 2.50}})";
    auto v = json::parse(text);
    v.as_object()["_meta"].as_object()["io.modelcontextprotocol/protocolVersion"] = "2026-07-28";
    v.as_object()["extra"] = {{"k", 0.5}};
    auto out = serialize_preserving(v, text);
    EXPECT_EQ(out,
              R"({"arguments":{"n": 1.10},"_meta":{"progressToken":7,"x":2.50,)"
              R"("io.modelcontextprotocol/protocolVersion":"2026-07-28"},"extra":{"k":5E-1}})");
    EXPECT_TRUE(same_bits(json::parse(out), v));
}

TEST(json_preserve, changed_parts_are_written_anew) {
    auto text = std::string(R"({"a":-0.0,"b":5,"c":"x","d":[1,2,3],"e":{"f":1}})");
    auto v = json::parse(text);
    auto& o = v.as_object();
    o["a"] = 0.0;                 // a positive zero is not the negative one as written
    o["b"] = 6;                   // another integer
    o["c"] = 1;                   // another kind
    o["d"].as_array().pop_back(); // an element fewer
    o["e"] = json::array{1};      // an object became an array
    EXPECT_EQ(serialize_preserving(v, text), R"({"a":0E0,"b":6,"c":1,"d":[1,2],"e":[1]})");
    o["d"].as_array().push_back(4.25);
    o["d"].as_array().push_back(5);
    EXPECT_EQ(serialize_preserving(v, text), R"({"a":0E0,"b":6,"c":1,"d":[1,2,4.25E0,5],"e":[1]})");
}

TEST(json_preserve, a_key_written_twice_is_never_copied) {
    // The parser keeps the last; an upstream's parser might keep the first. What goes on is
    // what gate read.
    std::string_view text = R"({"x":{"name":"safe","name":"other"},"y":[{"k":1,"k":2}]})";
    auto v = json::parse(text);
    EXPECT_FALSE(reads_as(v, text));
    EXPECT_EQ(serialize_preserving(v, text), R"({"x":{"name":"other"},"y":[{"k":2}]})");
    // Written twice with one spelled with escapes: the same key.
    std::string_view escaped = R"({"name":"a","n\u0061me":"b"})";
    auto w = json::parse(escaped);
    EXPECT_EQ(w.as_object().size(), 1u);
    EXPECT_EQ(serialize_preserving(w, escaped), R"({"name":"b"})");
}

TEST(json_preserve, escapes_in_keys_and_strings_read_as_their_values) {
    std::string_view text = R"({"n\u0061me":"caf\u00e9","s":"a\"b","n":1.0})";
    auto v = json::parse(text);
    EXPECT_TRUE(reads_as(v, text));
    v.as_object()["n"] = 2;
    EXPECT_EQ(serialize_preserving(v, text), R"({"n\u0061me":"caf\u00e9","s":"a\"b","n":2})");
    // A string that differs only once decoded.
    EXPECT_FALSE(reads_as(json::value("café!"), R"("caf\u00e9")"));
    EXPECT_TRUE(reads_as(json::value("café"), R"("caf\u00e9")"));
    // The text of an escape is longer than what it reads as: equal bytes are not equal values.
    EXPECT_FALSE(reads_as(json::value(R"(a\nb)"), R"("a\nb")"));
}

TEST(json_preserve, members_out_of_order_are_found_by_key) {
    // More members than the short search covers, and the value's order reversed.
    std::string text = "{";
    for (int i = 0; i < 40; ++i)
        text += (i ? "," : "") + std::string("\"k") + std::to_string(i) +
                "\":" + std::to_string(i) + ".50";
    text += "}";
    auto v = json::parse(text);
    json::object reversed;
    for (int i = 39; i >= 0; --i)
        reversed["k" + std::to_string(i)] = v.as_object()["k" + std::to_string(i)];
    auto out = serialize_preserving(reversed, text);
    EXPECT_EQ(out.substr(0, 21), R"({"k39":39.50,"k38":38)");
    EXPECT_TRUE(same_bits(json::parse(out), reversed));
}

TEST(json_preserve, without_a_source_infinity_is_written_as_json) {
    auto v = json::parse(R"({"a":1e400,"b":[-1e400],"c":0.5,"d":"x"})");
    std::string out;
    write_json(v, out);
    EXPECT_EQ(out, R"({"a":1e999,"b":[-1e999],"c":5E-1,"d":"x"})");
    EXPECT_TRUE(same_bits(json::parse(out), v));
    EXPECT_EQ(serialize_preserving(v, ""), out);
}

TEST(json_preserve, one_line_keeps_each_token_as_written_and_drops_the_spaces_between) {
    std::string src =
        "{ \"units\": 0.50,\n  \"note\": \"a b\\n c\",\t\"big\": 18446744073709551617 }";
    EXPECT_EQ(one_line_preserving(json::parse(src), src),
              R"({"units":0.50,"note":"a b\n c","big":18446744073709551617})");
    EXPECT_EQ(one_line_preserving(json::parse("[1e400, 0.5]"), ""), "[1e999,5E-1]");
}

TEST(json_preserve, reads_as_is_exact) {
    EXPECT_TRUE(reads_as(json::parse("1.00000000000000000001"), "1.0"));
    EXPECT_FALSE(reads_as(json::parse("1.00000000000000000001"), "1"));
    EXPECT_TRUE(reads_as(json::value(1.0), "1.00000000000000000001"));
    EXPECT_FALSE(reads_as(json::value(1), "1.0"));    // kinds differ
    EXPECT_FALSE(reads_as(json::value(0.0), "-0.0")); // so do the bits
    EXPECT_TRUE(reads_as(json::value(0), "-0"));      // an integer zero either way
    EXPECT_FALSE(reads_as(json::parse("[1,2]"), "[1,2,3]"));
    EXPECT_FALSE(reads_as(json::parse(R"({"a":1})"), R"({"a":1,"b":2})"));
    EXPECT_FALSE(reads_as(json::parse(R"({"a":1,"b":2})"), R"({"b":2,"a":1})"));
    EXPECT_FALSE(reads_as(json::value(true), "false"));
    EXPECT_FALSE(reads_as(json::value(nullptr), "0"));
}
