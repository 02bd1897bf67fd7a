// A configuration document refused with a reason at a pointer: what the config tests expect of
// each bad value (the pointer exact, the reason containing `needle`), with every error printed
// when it is not there.
#pragma once

#include "config/load.hpp"

#include <gtest/gtest.h>
#include <string>
#include <string_view>

namespace gate::config::testing {

inline void expect_refusal(const std::string& text, const std::string& pointer,
                           std::string_view needle) {
    auto r = parse(text, acceptance::specification);
    EXPECT_EQ(r.doc, nullptr);
    bool found = false;
    std::string got;
    for (const auto& e : r.errors) {
        found = found || (e.pointer == pointer && e.reason.find(needle) != std::string::npos);
        got += e.pointer + ": " + e.reason + "\n";
    }
    EXPECT_TRUE(found) << "wanted " << pointer << " ~ " << needle << "\ngot:\n" << got;
}

} // namespace gate::config::testing
