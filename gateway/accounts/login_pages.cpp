#include "gateway/accounts/login_pages.hpp"

namespace gate::gateway::accounts {

namespace http = boost::beast::http;

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            // Control characters (a subject is outside input) are shown as nothing.
            if (static_cast<unsigned char>(c) >= 0x20 || c == '\t')
                out += c;
        }
    }
    return out;
}

namespace {

transport::http_reply page(http::status status, std::string_view title, std::string body) {
    std::string html = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                       "<meta name=\"viewport\" content=\"width=device-width\"><title>";
    html += html_escape(title);
    html += "</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem "
            "auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1.25rem}"
            "code{background:#eee;padding:0 .25rem}</style></head><body><h1>";
    html += html_escape(title);
    html += "</h1>";
    html += body;
    html += "</body></html>";
    transport::http_reply r{status, "text/html; charset=utf-8", std::move(html), {}, false};
    // Nothing to load, nothing to frame (the button must not be clicked through another page),
    // nothing to keep: the page is about one login.
    r.headers.emplace_back("Content-Security-Policy", "default-src 'none'; style-src "
                                                      "'unsafe-inline'; "
                                                      "frame-ancestors 'none'");
    r.headers.emplace_back("X-Frame-Options", "DENY");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

} // namespace

transport::http_reply connect_page(std::string_view upstream, std::string_view subject,
                                   std::string_view login, std::string_view action) {
    std::string body = "<p>You are connecting your account at <strong>" + html_escape(upstream) +
                       "</strong> for the gate user <code>" + html_escape(subject) +
                       "</code>.</p><p>Continue only if you are that user and you started "
                       "this yourself. You will sign in at the upstream's own page; gate keeps "
                       "the access it grants for this user only.</p><form method=\"post\" "
                       "action=\"" +
                       html_escape(action) + "\"><input type=\"hidden\" name=\"login\" value=\"" +
                       html_escape(login) +
                       "\"><button type=\"submit\" id=\"continue\">Continue</button></form>";
    auto r = page(http::status::ok, "Connect " + std::string(upstream), std::move(body));
    // Its form posts to gate with gate's origin (under no-referrer a browser sends "null",
    // which the Origin allowlist refuses); nothing of it goes to another site.
    r.headers.emplace_back("Referrer-Policy", "same-origin");
    return r;
}

transport::http_reply outcome_page(http::status status, std::string_view title,
                                   std::string_view text) {
    auto r = page(status, title, "<p id=\"outcome\">" + html_escape(text) + "</p>");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
    return r;
}

} // namespace gate::gateway::accounts
