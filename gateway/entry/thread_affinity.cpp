#include "gateway/entry/thread_affinity.hpp"

#include "protocol/shard_key.hpp"

#include <algorithm>
#include <boost/beast/http/verb.hpp>

namespace gate::gateway {

namespace {

bool json_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool lower_hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

} // namespace

std::optional<std::string_view> minted_request_state(std::string_view body) {
    static constexpr std::string_view key = "\"requestState\"";
    for (auto at = body.find(key); at != std::string_view::npos; at = body.find(key, at + 1)) {
        auto i = at + key.size();
        while (i < body.size() && json_space(body[i]))
            ++i;
        if (i >= body.size() || body[i] != ':')
            continue; // the word as a value, not a member's name
        ++i;
        while (i < body.size() && json_space(body[i]))
            ++i;
        if (i >= body.size() || body[i] != '"')
            continue;
        auto value = body.substr(i + 1, 32);
        if (value.size() == 32 && i + 33 < body.size() && body[i + 33] == '"' && lower_hex(value))
            return value;
    }
    return std::nullopt;
}

namespace {

// What the first thread keeps for every thread, as on one: one prober and one second's reuse of
// its report; one scrape at a time (a scrape advances the tallies' counters by what they read);
// one cache of fetched icons and one bound on their fetches; users' accounts (a login's pages,
// a user's connections, the operator's listing and revocations).
bool first_threads(std::string_view path) {
    return path == "/health" || path == "/metrics" || path.starts_with("/icons/") ||
           path == "/oauth/connect" || path == "/oauth/callback" || path == "/api/connections" ||
           path.starts_with("/api/connections/") || path == "/api/accounts";
}

} // namespace

std::optional<std::size_t> owning_thread(const transport::http_request& req, bool body_read,
                                         std::string_view mcp_path, std::size_t threads) {
    if (threads <= 1)
        return std::nullopt;
    auto path = transport::path_of(req.target());
    if (first_threads(path))
        return body_read ? std::nullopt : std::optional<std::size_t>(0);
    if (path != mcp_path)
        return std::nullopt;
    if (auto session = transport::header(req, "Mcp-Session-Id"); session && !session->empty())
        return body_read ? std::nullopt : std::optional(protocol::shard_of(*session, threads));
    if (!body_read || req.method() != boost::beast::http::verb::post)
        return std::nullopt;
    if (auto state = minted_request_state(req.body()))
        return protocol::shard_of(*state, threads);
    return std::nullopt;
}

} // namespace gate::gateway
