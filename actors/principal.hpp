// A verified caller (spec: Principal): authentication makes it, policy and ownership read it.
// Anonymous callers have none.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

namespace gate {

struct principal {
    std::string subject;
    std::string issuer;
    std::vector<std::string> groups;
    boost::json::object claims; // the verified token's claims, for policy subjects
};

} // namespace gate
