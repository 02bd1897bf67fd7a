// The console gate-hooks serves (docs/webhooks.md, "Console"): one page at / (and /console)
// with its script and style at /console/console.js and /console/console.css, compiled in from
// hooks/console/ (hooks/console_page.cpp.in, filled by CMake). The page acts only through the
// API, with the token the user enters (kept in the tab's sessionStorage only). Separate files
// so the content security policy allows no inline script or style at all.
#pragma once

#include <optional>
#include <string_view>

namespace gate::hooks {

struct console_asset {
    std::string_view content_type;
    std::string_view body;
};

// The page for an empty name, else the asset of that name under /console/, or nullopt.
std::optional<console_asset> console_asset_at(std::string_view name);

// Every console answer's policy: its own script, style and API calls, nothing inline, no
// other origin, never framed.
inline constexpr std::string_view console_csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

} // namespace gate::hooks
