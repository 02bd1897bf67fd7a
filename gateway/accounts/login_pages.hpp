// The two pages a user's browser gets from gate during a login (docs/user-accounts.md): the
// connect page, which says who is connecting which upstream before anything is sent to the
// authorization server, and the page the browser lands on when it comes back. Every value is
// HTML-escaped; the pages load nothing, cannot be framed and are not cached (login_page_headers).
#pragma once

#include "transport/http/http_reply.hpp"

#include <string>
#include <string_view>

namespace gate::gateway::accounts {

std::string html_escape(std::string_view s);

// The connect page: a form that posts `login` back to `action`.
transport::http_reply connect_page(std::string_view upstream, std::string_view subject,
                                   std::string_view login, std::string_view action);
// What the browser is told at the end, or when a link cannot be used.
transport::http_reply outcome_page(boost::beast::http::status status, std::string_view title,
                                   std::string_view text);

} // namespace gate::gateway::accounts
