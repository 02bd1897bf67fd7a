// The console page and its assets (gateway/operations/console/), compiled in: GET /console/ serves
// the page, /console/console.js and /console/console.css its script and style. Separate files so
// the content security policy allows no inline script or style at all.
#pragma once

#include <optional>
#include <string_view>

namespace gate::gateway {

struct console_asset {
    std::string_view content_type;
    std::string_view body;
};

// The asset at `path` (a path under /console/), or nullopt.
std::optional<console_asset> console_asset_at(std::string_view path);

// The policy every console answer carries: its own scripts, styles and API calls, nothing
// inline, nothing framed.
inline constexpr std::string_view console_csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

} // namespace gate::gateway
