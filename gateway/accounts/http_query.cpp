#include "gateway/accounts/http_query.hpp"

#include <algorithm>
#include <boost/url/params_view.hpp>
#include <boost/url/parse_query.hpp>

namespace gate::gateway::accounts {

std::optional<std::string> query_value(std::string_view text, std::string_view key) {
    std::string copy(text); // NUL-terminated for Boost.URL 1.81 (see http_face::mcp_context)
    if (!boost::urls::parse_query(copy))
        return std::nullopt;
    boost::urls::params_view params(copy); // checked above: it does not throw
    std::optional<std::string> found;
    for (auto p : params) {
        if (p.key != key)
            continue;
        if (found)
            return std::nullopt;
        found = std::move(p.value);
    }
    return found;
}

std::string_view query_of(const transport::http_request& req) {
    std::string_view target(req.target().data(), req.target().size());
    auto q = target.find('?');
    return q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
}

std::optional<std::string> unknown_key(std::string_view text,
                                       std::initializer_list<std::string_view> known) {
    std::string copy(text);
    if (copy.empty())
        return std::nullopt;
    if (!boost::urls::parse_query(copy))
        return std::string("(the query cannot be read)");
    boost::urls::params_view params(copy);
    for (auto p : params)
        if (std::find(known.begin(), known.end(), p.key) == known.end())
            return std::move(p.key);
    return std::nullopt;
}

} // namespace gate::gateway::accounts
