// A policy entry's condition on one value of a call's arguments (config::argument_condition),
// compiled once per snapshot: the pointer split into its reference tokens, the pattern an RE2
// program (linear in the value's length whatever the pattern: an argument is the caller's, a
// backtracking matcher would let it choose the cost). Plain C++.
#pragma once

#include "config/model.hpp"

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <vector>

namespace re2 {
class RE2;
}

namespace gate {

class argument_match {
public:
    // `c` as the configuration checked it (a valid pointer and pattern).
    explicit argument_match(const config::argument_condition& c);
    ~argument_match();
    argument_match(argument_match&&) noexcept;
    argument_match& operator=(argument_match&&) noexcept;

    // Whether the value at the pointer into `arguments` (null: the call has none) passes every
    // test. `refusing`: the condition is a deny entry's, which holds for a value of another
    // kind than its tests read (fails closed).
    bool holds(const boost::json::object* arguments, bool refusing = false) const;

private:
    enum class verdict { passes, fails, other_kind };
    verdict test(const boost::json::value& v) const;

    config::argument_condition c_;
    std::vector<std::string> tokens_; // the pointer's reference tokens, unescaped
    std::unique_ptr<re2::RE2> pattern_;
};

// The value at RFC 6901 reference tokens below `root`; null when nothing is there (and for
// no tokens: the root is an object, no tested value).
const boost::json::value* value_at(const boost::json::object& root,
                                   const std::vector<std::string>& tokens);

} // namespace gate
