#pragma once

#include "config/json_view.hpp"

#include <optional>
#include <string_view>

namespace gate::config::detail {

// Parses strict JSON (no comments, no trailing commas). Syntax errors and duplicate keys are
// reported to `errors`; nullopt only when the text is not JSON at all.
std::optional<json::value> read_json(std::string_view text, sink& errors);

} // namespace gate::config::detail
