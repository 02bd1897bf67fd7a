// A policy entry's condition on one value of a call's arguments (config::argument_condition),
// compiled once per snapshot: the pointer split into its reference tokens, the pattern an RE2
// program (linear in the value's length whatever the pattern: an argument is the caller's, a
// backtracking matcher would let it choose the cost). Plain C++.
#pragma once

#include "config/model.hpp"

#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace gate::policy {

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
    // A string as the condition's tests read it: normalized as a path, letters folded.
    std::optional<std::string> read_string(std::string_view text) const;

    config::argument_condition c_;
    std::vector<std::string> tokens_; // the pointer's reference tokens, unescaped
    std::unique_ptr<re2::RE2> pattern_;
};

// `text` read as a POSIX path, lexically (no file system asked): empty and "." segments
// dropped, no trailing '/' ("." for nothing left of a relative path). nullopt for any ".."
// (behind a symbolic link a step up leads where the text does not say: the traversal a path
// condition exists to catch) and for a NUL, which no path holds.
std::optional<std::string> lexical_path(std::string_view text);

// The value at RFC 6901 reference tokens below `root`; null when nothing is there (and for
// no tokens: the root is an object, no tested value).
const boost::json::value* value_at(const boost::json::object& root,
                                   const std::vector<std::string>& tokens);

} // namespace gate::policy
