#include "hooks/routes.hpp"

namespace gate::hooks {

namespace {

std::vector<std::string_view> split(std::string_view path) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < path.size()) {
        while (i < path.size() && path[i] == '/')
            ++i;
        auto j = path.find('/', i);
        if (j == std::string_view::npos)
            j = path.size();
        if (j > i)
            out.push_back(path.substr(i, j - i));
        i = j;
    }
    return out;
}

bool matches(std::string_view pattern, const std::vector<std::string_view>& parts,
             std::vector<std::string>& params) {
    auto want = split(pattern);
    if (want.size() != parts.size())
        return false;
    std::vector<std::string> found;
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (want[i].starts_with('{'))
            found.emplace_back(parts[i]);
        else if (want[i] != parts[i])
            return false;
    }
    params = std::move(found);
    return true;
}

} // namespace

std::variant<route_match, no_route, wrong_method> match_route(std::string_view method,
                                                              std::string_view path) {
    if (method == "HEAD")
        method = "GET";
    auto parts = split(path);
    std::string allow;
    for (const auto& r : routes) {
        std::vector<std::string> params;
        if (!matches(r.path, parts, params))
            continue;
        if (r.method == method)
            return route_match{&r, std::move(params)};
        if (allow.find(r.method) == std::string::npos)
            allow += (allow.empty() ? "" : ", ") + std::string(r.method);
    }
    if (!allow.empty())
        return wrong_method{std::move(allow)};
    return no_route{};
}

} // namespace gate::hooks
