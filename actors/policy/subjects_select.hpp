// Whether a selector of principals (the `subjects` of policy rules and tenants) selects a
// verified principal: every selector kind present must match (AND), within one kind any
// listed value (OR); claims compare scalar values exactly.
#pragma once

#include "actors/policy/principal.hpp"
#include "config/model.hpp"

namespace gate {

// Whether a JSON value is a configured scalar, by type (the string "1" is not the number 1;
// numbers compare as doubles).
bool scalar_equals(const boost::json::value& have, const config::claim_value& want);

// Whether `s` selects `p`, or would but for scopes the token lacks (`scope`, space-separated,
// or `scp`): a caller a policy rule would grant more with more scopes is told which (step-up).
enum class selection { no, yes, lacks_scopes };
selection select_principal(const config::subjects& s, const principal& p);

inline bool subjects_select(const config::subjects& s, const principal& p) {
    return select_principal(s, p) == selection::yes;
}

} // namespace gate
