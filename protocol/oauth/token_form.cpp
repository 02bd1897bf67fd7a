#include "protocol/oauth/token_form.hpp"

#include "protocol/jose/base64url.hpp"
#include "protocol/oauth_scope.hpp"

#include <algorithm>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace gate::protocol::oauth {

std::string form_encode(std::string_view s) {
    // With its length: Boost.URL 1.81 takes other views through a `const char*`.
    return boost::urls::encode(boost::core::string_view(s.data(), s.size()),
                               boost::urls::unreserved_chars);
}

std::string scope_param(const std::vector<std::string>& scopes) {
    std::string out;
    for (const auto& s : scopes)
        out += (out.empty() ? "" : " ") + s;
    return out;
}

bool is_scope_list(std::string_view scope) {
    if (scope.empty() || scope.size() > 1024)
        return false;
    for (auto rest = scope;;) {
        auto sp = rest.find(' ');
        if (!is_scope_token(rest.substr(0, sp)))
            return false;
        if (sp == std::string_view::npos)
            return true;
        rest.remove_prefix(sp + 1);
    }
}

std::string scope_union(std::string_view a, std::string_view b) {
    std::vector<std::string_view> out;
    for (auto rest : {a, b})
        while (!rest.empty()) {
            auto sp = rest.find(' ');
            auto one = rest.substr(0, sp);
            if (!one.empty() && std::find(out.begin(), out.end(), one) == out.end())
                out.push_back(one);
            rest.remove_prefix(sp == std::string_view::npos ? rest.size() : sp + 1);
        }
    std::string joined;
    for (auto one : out)
        joined.append(joined.empty() ? "" : " ").append(one);
    return joined;
}

namespace {

std::string base64(std::string_view bytes) {
    // Standard alphabet with padding, for HTTP Basic (RFC 7617).
    auto url = jose::base64url_encode(bytes);
    for (auto& c : url)
        c = c == '-' ? '+' : c == '_' ? '/' : c;
    while (url.size() % 4)
        url += '=';
    return url;
}

} // namespace

token_form& token_form::add(std::string_view key, std::string_view value) {
    if (!body.empty())
        body += '&';
    body.append(key);
    body += '=';
    body += form_encode(value);
    return *this;
}

token_form& token_form::authenticate(const client_identity& client) {
    if (client.method == "client_secret_basic") {
        headers.emplace_back("Authorization", "Basic " + base64(form_encode(client.id) + ":" +
                                                                form_encode(client.secret)));
        return *this;
    }
    add("client_id", client.id);
    if (client.method == "client_secret_post")
        add("client_secret", client.secret);
    return *this;
}

} // namespace gate::protocol::oauth
