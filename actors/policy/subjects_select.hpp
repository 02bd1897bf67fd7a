// Whether a selector of principals (the `subjects` of policy rules and tenants) selects a
// verified principal: every selector kind present must match (AND), within one kind any
// listed value (OR); claims compare scalar values exactly.
#pragma once

#include "actors/policy/principal.hpp"
#include "config/model.hpp"

namespace gate {

bool subjects_select(const config::subjects& s, const principal& p);

} // namespace gate
