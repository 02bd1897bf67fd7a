// Fields of the configuration document that the specification defines and this build of gate
// does not enforce yet. Each is refused at its JSON pointer, by `--validate`, at start and on
// reload: a gateway that accepted `auth.mode: "required"` and then served every caller
// anonymously would have lied to its operator. An entry leaves this table in the commit that
// enforces its field.
#pragma once

#include "config/load.hpp"

#include <boost/json/value.hpp>
#include <span>
#include <string_view>
#include <vector>

namespace gate::config {

struct unsupported_field {
    std::string_view pattern; // JSON pointer; `*` matches any array index
    // Which values are unsupported: null means every value.
    bool (*applies)(const boost::json::value&);
    std::string_view what;        // the feature, as an operator would name it
    std::string_view consequence; // what gate would silently do if it accepted the field
};

std::span<const unsupported_field> unsupported_fields();

// One error per unsupported field present in `root` (a structurally parsed document).
std::vector<error> refuse_unsupported(const boost::json::value& root);

} // namespace gate::config
