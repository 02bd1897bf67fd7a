// What a client may send to create or change a webhook, checked field by field: every refusal names
// the field and says what is wrong with it (docs/webhooks.md, "Bad input"). Plain C++.
#pragma once

#include <boost/json/object.hpp>
#include <boost/url/url_view.hpp>
#include <optional>
#include <string>
#include <variant>

namespace gate::hooks {

struct webhook_spec {
    std::string event;
    std::string url;
    std::optional<std::string> secret;
};

// A change to a webhook: each member present is changed, the others kept.
struct webhook_patch {
    std::optional<bool> enabled;
    std::optional<std::string> url;
    std::optional<std::optional<std::string>> secret; // set, or null: unsigned from now on
};

struct field_error {
    std::string field; // the JSON member, e.g. "url"; empty: the body as a whole
    std::string message;
};

inline constexpr std::size_t max_url_length = 2048;
inline constexpr std::size_t min_secret_length = 16;
inline constexpr std::size_t max_secret_length = 256;
inline constexpr std::size_t max_host_name_length = 253; // DNS, without the root's dot
inline constexpr std::size_t max_host_label_length = 63;

// The body of a create request (already parsed as JSON).
std::variant<webhook_spec, field_error> parse_webhook_spec(const boost::json::value& body);
// An https URL gate-hooks will deliver to, or why not (also used at delivery time).
std::optional<std::string> check_target_url(std::string_view url);
// A URL's host name, percent-decoded: why it is not one a resolver can be given whole (a
// byte other than letters, digits, '-', '_', '.'; an empty label; DNS's length limits).
std::optional<std::string> check_host_name(std::string_view name);
// The host a URL's delivery resolves and dials: a name percent-decoded, an IPv6 address
// without brackets.
std::string target_host(const boost::urls::url_view& u);
// The body of a change: {"enabled"?: bool, "url"?: string, "secret"?: string | null}, at least
// one of them.
std::variant<webhook_patch, field_error> parse_webhook_patch(const boost::json::value& body);

} // namespace gate::hooks
