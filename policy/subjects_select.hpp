// Whether a selector of principals (the `subjects` of policy rules and tenants) selects a
// verified principal: every selector kind present must match (AND), within one kind any
// listed value (OR); claims compare scalar values exactly.
#pragma once

#include "config/model.hpp"
#include "policy/principal.hpp"

#include <optional>

namespace gate::policy {

// Whether a JSON value is a configured scalar, by type (the string "1" is not the number 1).
// Integers compare exactly (as long double, whose 64-bit mantissa holds every 64-bit integer;
// the configured number is a double, and the configuration refuses integers beyond 2^53).
bool scalar_equals(const boost::json::value& have, const config::claim_value& want);
// Whether a JSON value is of the configured scalar's kind (string, boolean, number).
bool same_kind(const boost::json::value& have, const config::claim_value& want);
// A JSON number, exactly for integers; nullopt for anything else (and a non-finite double).
std::optional<long double> json_number(const boost::json::value& v);

// Whether `s` selects `p`, or would but for scopes the token lacks (`scope`, space-separated,
// or `scp`): a caller a policy rule would grant more with more scopes is told which (step-up).
enum class selection { no, yes, lacks_scopes };
selection select_principal(const config::subjects& s, const principal& p);

// The token's scopes (`scope`, space-separated, then `scp`), in order, each once.
std::vector<std::string> held_scopes(const principal& p);

inline bool subjects_select(const config::subjects& s, const principal& p) {
    return select_principal(s, p) == selection::yes;
}

} // namespace gate::policy
