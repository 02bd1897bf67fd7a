// A verified caller (spec: Principal): authentication makes it, policy and ownership read it.
// Anonymous callers have none.
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <vector>

namespace gate::policy {

struct principal {
    std::string subject;
    std::string issuer;
    std::vector<std::string> groups;
    boost::json::object claims; // the verified token's claims, for policy subjects
};

// A request's caller, shared rather than copied: the principal of a token verified moments ago
// serves every request that presents it. Null: anonymous.
using caller_ref = std::shared_ptr<const principal>;

} // namespace gate::policy
