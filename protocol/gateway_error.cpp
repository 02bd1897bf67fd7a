#include "protocol/gateway_error.hpp"

#include "protocol/json_rpc.hpp"

#include <array>

namespace gate::protocol {

namespace {
namespace ec = error_code;
using row = gateway_error_row;

constexpr std::array<row, gateway_error_count> table = {{
    /* upstream_rate_limited */ {200, ec::upstream_rate_limited, outcome::rate_limited,
                                 "rate_limited"},
    /* upstream_circuit_open */
    {200, ec::upstream_unavailable, outcome::upstream_down, "circuit_open"},
    /* upstream_unreachable  */
    {200, ec::upstream_unavailable, outcome::upstream_down, "connect_error"},
    /* upstream_failed       */ {200, ec::upstream_unavailable, outcome::upstream_down, "error"},
    /* all_upstreams_down    */ {200, ec::upstream_unavailable, outcome::upstream_down, ""},
    /* policy_denied         */ {200, ec::policy_denied, outcome::denied, ""},
    /* unknown_namespace     */ {200, ec::unknown_namespace, outcome::error, ""},
    /* budget_exhausted      */ {200, ec::budget_exhausted, outcome::budget_exhausted, ""},
    /* unknown_task          */ {200, ec::unknown_task, outcome::error, ""},
    /* invalid_cursor        */ {200, ec::invalid_params, outcome::error, ""},
    /* global_rate_limited   */ {429, 0, outcome::rate_limited, "rate_limited"},
    /* unauthenticated       */ {401, 0, outcome::unauthenticated, "unauthenticated"},
    /* forbidden_host        */ {403, 0, outcome::forbidden, "forbidden_host"},
    /* forbidden_origin      */ {403, 0, outcome::forbidden, "forbidden_origin"},
    /* body_too_large        */ {413, 0, outcome::error, "body_too_large"},
    /* ambiguous_tenant      */ {403, 0, outcome::forbidden, "ambiguous_tenant"},
}};

// A row missing from the initializer would be all zeros: no status, no outcome.
consteval bool every_row_filled() {
    for (const auto& r : table)
        if (r.http_status == 0)
            return false;
    return true;
}
static_assert(every_row_filled(), "a gateway_error has no row in the table");
} // namespace

const gateway_error_row& describe(gateway_error e) {
    return table[static_cast<std::size_t>(e)];
}

boost::json::object make_gateway_error(gateway_error e, const boost::json::value& id,
                                       std::string_view text) {
    return make_error(id, describe(e).rpc_code, text);
}

} // namespace gate::protocol
