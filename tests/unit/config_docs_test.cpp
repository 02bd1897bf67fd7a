// docs/configuration.md must document everything the schema defines.
#include "config/load.hpp"

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

namespace gate::config {
namespace {

namespace json = boost::json;

std::string docs_text() {
    std::ifstream in(std::filesystem::path(GATE_SOURCE_DIR) / "docs/configuration.md");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every key of every "properties" object, and every string of every "enum", anywhere.
void collect(const json::value& v, std::set<std::string>& properties,
             std::set<std::string>& enum_values) {
    if (const auto* obj = v.if_object()) {
        for (const auto& m : *obj) {
            if (m.key() == "properties" && m.value().is_object()) {
                for (const auto& p : m.value().get_object()) {
                    properties.emplace(p.key());
                }
            }
            if (m.key() == "enum" && m.value().is_array()) {
                for (const auto& e : m.value().get_array()) {
                    enum_values.emplace(e.as_string());
                }
            }
            collect(m.value(), properties, enum_values);
        }
    } else if (const auto* arr = v.if_array()) {
        for (const auto& item : *arr) {
            collect(item, properties, enum_values);
        }
    }
}

TEST(ConfigDocs, EverySchemaPropertyIsDocumentedInBackticks) {
    auto docs = docs_text();
    ASSERT_FALSE(docs.empty()) << "docs/configuration.md is missing";
    std::set<std::string> properties, enum_values;
    collect(json::parse(schema_text()), properties, enum_values);
    ASSERT_GT(properties.size(), 50u);
    for (const auto& name : properties) {
        EXPECT_NE(docs.find("`" + name + "`"), std::string::npos)
            << "docs/configuration.md never mentions `" << name << "`";
    }
}

TEST(ConfigDocs, EveryEnumValueIsDocumentedInBackticks) {
    auto docs = docs_text();
    std::set<std::string> properties, enum_values;
    collect(json::parse(schema_text()), properties, enum_values);
    ASSERT_GT(enum_values.size(), 10u);
    for (const auto& value : enum_values) {
        EXPECT_NE(docs.find("`" + value + "`"), std::string::npos)
            << "docs/configuration.md never mentions `" << value << "`";
    }
}

TEST(ConfigDocs, RecordsTheDecisionsOnOpenPoints) {
    auto docs = docs_text();
    for (auto needle : {"Decisions on points the specification leaves open", "`week`",
                        "allowedCredentialHosts", "pageSize", "console.enabled"}) {
        EXPECT_NE(docs.find(needle), std::string::npos) << needle;
    }
}

} // namespace
} // namespace gate::config
