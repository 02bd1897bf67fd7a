// The query of a request to gate's account pages and APIs, read one value at a time: a value
// given twice is believed neither time (RFC 6749 section 3.1), so a second copy can never
// override the first one a check read.
#pragma once

#include "transport/http/http_server.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway::accounts {

// One value of a query or a form, decoded ('+' is a space); nullopt when absent, given twice
// or not a query.
std::optional<std::string> query_value(std::string_view text, std::string_view key);
// The query of `req`'s target (empty when it has none).
std::string_view query_of(const transport::http_request& req);
// The keys of `text` that are not among `known`: the first one, decoded; nullopt when every
// key is known (a misspelt parameter is refused rather than ignored).
std::optional<std::string> unknown_key(std::string_view text,
                                       std::initializer_list<std::string_view> known);

} // namespace gate::gateway::accounts
