// The form gate posts to a token endpoint as an OAuth client (RFC 6749 sections 2.3.1 and
// 4.1.3, 6): application/x-www-form-urlencoded pairs, and how the client authenticates:
// client_secret_basic (the id and secret form-encoded, then HTTP Basic), client_secret_post
// (both in the form) or none (a public client: its id in the form).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gate::protocol::oauth {

std::string form_encode(std::string_view s);

// The `scope` parameter of a list of scopes: space-separated (RFC 6749 section 3.3).
std::string scope_param(const std::vector<std::string>& scopes);
// Whether `scope` is such a parameter: scope tokens (RFC 6749 section 3.3) one space apart, at
// most 1,024 bytes (what an upstream's challenge names is believed only then).
bool is_scope_list(std::string_view scope);
// The scopes of `a`, then those of `b` not among them, one space apart (a step-up asks for
// what it holds and what it lacks).
std::string scope_union(std::string_view a, std::string_view b);

struct client_identity {
    std::string id;
    std::string secret;
    std::string method = "none"; // none | client_secret_post | client_secret_basic
};

struct token_form {
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers; // Authorization for Basic

    // Appends `key=value`, the value form-encoded.
    token_form& add(std::string_view key, std::string_view value);
    // The client's authentication, as its method says.
    token_form& authenticate(const client_identity& client);
};

} // namespace gate::protocol::oauth
