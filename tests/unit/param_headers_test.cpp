// `x-mcp-header` and `Mcp-Param-*` (protocol/param_headers): the rules of the 2026-07-28
// revision for annotations (each case of its conformance table), the values written for a
// call's arguments (the revision's encoding examples), and a client's headers checked against
// its body.
#include "protocol/modern_request.hpp"
#include "protocol/param_headers.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

using namespace gate::protocol;
namespace json = boost::json;

namespace {

std::variant<param_headers, std::string> read_schema(std::string_view schema) {
    auto v = json::parse(schema);
    return read_param_headers(&v);
}

std::string why_invalid(std::string_view schema) {
    auto got = read_schema(schema);
    return std::holds_alternative<std::string>(got) ? std::get<std::string>(got) : "";
}

param_headers headers_of(std::string_view schema) {
    auto got = read_schema(schema);
    EXPECT_TRUE(std::holds_alternative<param_headers>(got)) << std::get<std::string>(got);
    return std::holds_alternative<param_headers>(got) ? std::get<param_headers>(got)
                                                      : param_headers{};
}

json::object arguments_of(std::string_view text) {
    return json::parse(text).as_object();
}

} // namespace

TEST(param_headers, annotations_on_properties_reached_through_properties_are_read) {
    auto got = headers_of(R"({"type":"object","properties":{
        "region":{"type":"string","x-mcp-header":"Region"},
        "target":{"type":"object","properties":{"id":{"type":"integer","x-mcp-header":"Method"}}},
        "plain":{"type":"string"}}})");
    EXPECT_EQ(got, (param_headers{{"Region", {"region"}}, {"Method", {"target", "id"}}}));
    EXPECT_TRUE(headers_of(R"({"type":"object"})").empty());
    EXPECT_TRUE(std::get<param_headers>(read_param_headers(nullptr)).empty());
    // Data is not a schema: an example holding the key annotates nothing.
    EXPECT_TRUE(headers_of(R"({"properties":{"a":{"type":"object",
        "default":{"x-mcp-header":"A"},"examples":[{"x-mcp-header":"B"}]}}})")
                    .empty());
}

TEST(param_headers, each_invalid_annotation_of_the_revision_is_refused_with_its_reason) {
    auto prop = [](std::string_view type, std::string_view name) {
        return R"({"properties":{"p":{"type":")" + std::string(type) + R"(","x-mcp-header":)" +
               std::string(name) + "}}}";
    };
    for (auto bad : {R"("")", R"("My Region")", R"("Region:Primary")", R"("Région")",
                     R"("Region\t1")", R"("a\r\nX-Evil: 1")", "42", "null"})
        EXPECT_NE(why_invalid(prop("string", bad)).find("must be a non-empty HTTP token"),
                  std::string::npos)
            << bad;
    for (auto type : {"number", "array", "object", "null"})
        EXPECT_NE(why_invalid(prop(type, R"("P")")).find("type is not integer, string or boolean"),
                  std::string::npos)
            << type;
    EXPECT_NE(why_invalid(R"({"properties":{"p":{"x-mcp-header":"P"}}})").find("type is not"),
              std::string::npos);
    EXPECT_NE(why_invalid(R"({"properties":{"a":{"type":"string","x-mcp-header":"Region"},
        "b":{"type":"string","x-mcp-header":"REGION"}}})")
                  .find("repeats the one of inputSchema.properties.a"),
              std::string::npos);
    for (
        auto where :
        {R"({"type":"object","x-mcp-header":"Root"})",
         R"({"properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"I"}}}})",
         R"({"properties":{"o":{"oneOf":[{"type":"string","x-mcp-header":"O"}]}}})",
         R"({"$defs":{"d":{"type":"string","x-mcp-header":"D"}}})",
         R"({"properties":{"c":{"if":{"type":"string","x-mcp-header":"C"}}}})",
         R"({"properties":{"r":{"anyOf":[{"properties":{"x":{"type":"string","x-mcp-header":"X"}}}]}}})"})
        EXPECT_NE(why_invalid(where).find("allowed only on a property reached from the root"),
                  std::string::npos)
            << where;
}

TEST(param_headers, values_are_written_as_the_revision_encodes_them) {
    param_headers wanted{
        {"Region", {"region"}}, {"Count", {"count"}}, {"Dry", {"dry"}}, {"Id", {"t", "id"}}};
    EXPECT_TRUE(param_header_fields(wanted, nullptr).empty());
    auto a = arguments_of(R"({"region":"us-west1","count":42,"dry":false,"t":{"id":7}})");
    EXPECT_EQ(param_header_fields(wanted, &a), (header_fields{{"Mcp-Param-Region", "us-west1"},
                                                              {"Mcp-Param-Count", "42"},
                                                              {"Mcp-Param-Dry", "false"},
                                                              {"Mcp-Param-Id", "7"}}));
    // Null or absent: left out; 42.0 is the integer 42.
    auto b = arguments_of(R"({"region":null,"count":42.0})");
    EXPECT_EQ(param_header_fields(wanted, &b), (header_fields{{"Mcp-Param-Count", "42"}}));
    // The revision's examples.
    EXPECT_EQ(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    EXPECT_EQ(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
    EXPECT_EQ(encode_header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    EXPECT_EQ(encode_header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    EXPECT_EQ(encode_header_value("us west 1"), "us west 1");
    EXPECT_EQ(encode_header_value(""), "");
    EXPECT_EQ(encode_header_value("=?base64?open"), "=?base64?open");
}

TEST(param_headers, a_clients_headers_must_mirror_its_arguments) {
    param_headers wanted{{"Region", {"region"}}, {"Count", {"count"}}};
    auto a = arguments_of(R"({"region":"Hello, 世界","count":42})");
    sent_param_headers good{{"region", "=?base64?SGVsbG8sIOS4lueVjA==?="}, {"COUNT", "42.0"}};
    EXPECT_EQ(check_param_headers(wanted, &a, good), std::nullopt) << "names case-insensitive";
    auto why = [&](const json::object& body, sent_param_headers sent) {
        return check_param_headers(wanted, &body, sent).value_or("");
    };
    EXPECT_NE(why(a, {{"Count", "42"}})
                  .find("Mcp-Param-Region header is absent but "
                        "arguments.region is in the body"),
              std::string::npos);
    auto only_count = arguments_of(R"({"count":1,"region":null})");
    EXPECT_NE(why(only_count, {{"Count", "1"}, {"Region", "x"}})
                  .find("Mcp-Param-Region header is sent but arguments.region is absent"),
              std::string::npos);
    EXPECT_NE(why(a, {{"Region", "=?base64?SGVsbG8sIOS4lueVjA==?="}, {"Count", "43"}})
                  .find("value '43' does not match body value '42'"),
              std::string::npos);
    EXPECT_NE(why(a, {{"Region", "=?base64?!!!!?="}, {"Count", "42"}})
                  .find("invalid characters or encoding"),
              std::string::npos);
    auto plain = arguments_of(R"({"region":"caf\u00e9","count":42})");
    EXPECT_NE(why(plain, {{"Region", "caf\xc3\xa9"}, {"Count", "42"}})
                  .find("invalid characters or encoding"),
              std::string::npos)
        << "non-ASCII must be base64";
    // A hostile decoded value is shown without its control characters.
    auto msg = why(a, {{"Region", "=?base64?AAp4?="}, {"Count", "42"}});
    EXPECT_NE(msg.find("value '??x'"), std::string::npos) << msg;
    // Integers compare exactly, past what a double holds.
    auto big = arguments_of(R"({"region":"x","count":9007199254740993})");
    EXPECT_NE(why(big, {{"Region", "x"}, {"Count", "9007199254740992"}}).find("does not match"),
              std::string::npos);
    EXPECT_EQ(why(big, {{"Region", "x"}, {"Count", "9007199254740993"}}), "");
    // Property names an upstream wrote reach messages printable only.
    param_headers odd{{"P", {"a\nb"}}};
    auto body = arguments_of(R"({"a\nb":"v"})");
    auto said = check_param_headers(odd, &body, {}).value_or("");
    EXPECT_NE(said.find("arguments.a?b"), std::string::npos) << said;
    // Headers of parameters the tool does not annotate are not this check's.
    EXPECT_EQ(check_param_headers(wanted, &a,
                                  {{"Region", "=?base64?SGVsbG8sIOS4lueVjA==?="},
                                   {"Count", "42"},
                                   {"Other", "anything"}}),
              std::nullopt);
}
