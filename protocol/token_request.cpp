#include "protocol/token_request.hpp"

#include <boost/url/parse_query.hpp>
#include <map>
#include <string>

namespace gate::protocol {

namespace {

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    while (!s.empty()) {
        auto space = s.find(' ');
        if (auto w = s.substr(0, space); !w.empty())
            out.emplace_back(w);
        s = space == std::string_view::npos ? std::string_view() : s.substr(space + 1);
    }
    return out;
}

} // namespace

std::variant<token_request, token_request_refusal> read_token_request(std::string_view body) {
    // Boost.URL 1.81's parse_query reads its input as a C string (strlen, found by the fuzz
    // target): it gets a terminated copy, and a raw NUL, which no form may hold, is refused.
    if (body.find('\0') != std::string_view::npos)
        return token_request_refusal{"invalid_request", "the token request's form cannot be read"};
    std::string text(body);
    auto params = boost::urls::parse_query(text);
    if (!params)
        return token_request_refusal{"invalid_request", "the token request's form cannot be read"};
    std::map<std::string, std::string> form;
    boost::urls::encoding_opts form_encoding; // application/x-www-form-urlencoded: + is a space
    form_encoding.space_as_plus = true;
    for (auto p : *params) {
        auto key = p.key.decode(form_encoding);
        // RFC 6749 section 3.2: a parameter sent twice makes the request invalid.
        if (!form.emplace(key, p.has_value ? p.value.decode(form_encoding) : std::string()).second)
            return token_request_refusal{"invalid_request",
                                         "the parameter " + key + " is repeated"};
    }
    if (form["grant_type"] != jwt_bearer_grant)
        return token_request_refusal{"unsupported_grant_type",
                                     "grant_type must be " + std::string(jwt_bearer_grant)};
    token_request r;
    r.assertion = form["assertion"];
    if (r.assertion.empty())
        return token_request_refusal{"invalid_request",
                                     "the assertion parameter (the ID-JAG) is missing"};
    if (auto it = form.find("client_id"); it != form.end())
        r.client_id = it->second;
    if (auto it = form.find("scope"); it != form.end())
        r.scopes = words(it->second);
    return r;
}

} // namespace gate::protocol
