// The requests gate makes as an OAuth client (user_accounts): a GET of a JSON document and a
// form POST to one of the server's endpoints, each bounded in time and in the answer's size.
#pragma once

#include "protocol/oauth/token_form.hpp"
#include "transport/client/http_fetch.hpp"

#include <chrono>
#include <string>

namespace gate::gateway::accounts {

inline constexpr auto oauth_fetch_timeout = std::chrono::seconds(10);

inline transport::fetch_request json_get(std::string url) {
    transport::fetch_request r;
    r.url = std::move(url);
    r.timeout = oauth_fetch_timeout;
    r.max_body = 64 * 1024;
    r.headers.emplace_back("Accept", "application/json");
    return r;
}

inline transport::fetch_request form_post(std::string url, protocol::oauth::token_form form) {
    auto r = json_get(std::move(url));
    r.method = "POST";
    r.content_type = "application/x-www-form-urlencoded";
    r.body = std::move(form.body);
    for (auto& h : form.headers)
        r.headers.push_back(std::move(h));
    return r;
}

} // namespace gate::gateway::accounts
