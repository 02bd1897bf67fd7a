#include "transport/http/host_guard.hpp"

#include <algorithm>
#include <cctype>

namespace gate::transport {

namespace {

// A port as RFC 3986 allows it after the host: digits only (and not empty when a colon is
// there). Anything else, `localhost:8090.evil.com` among them, is not an authority at all.
bool port_ok(std::string_view after_host) {
    if (after_host.empty())
        return true;
    if (after_host.front() != ':' || after_host.size() == 1 || after_host.size() > 6)
        return false;
    return std::all_of(after_host.begin() + 1, after_host.end(),
                       [](unsigned char c) { return std::isdigit(c) != 0; });
}

} // namespace

std::string hostname_of(std::string_view h) {
    std::string_view name = h;
    if (h.starts_with('[')) {
        auto close = h.find(']');
        if (close == std::string_view::npos || !port_ok(h.substr(close + 1)))
            return {};
        name = h.substr(1, close - 1);
    } else if (auto colon = h.find(':'); colon != std::string_view::npos) {
        // One colon: host and port. More than one: a bare IPv6 address (no port possible).
        if (h.find(':', colon + 1) == std::string_view::npos) {
            if (!port_ok(h.substr(colon)))
                return {};
            name = h.substr(0, colon);
        }
    }
    // A host name never holds these; a header that does is refused, never trimmed.
    if (name.empty() || name.find_first_of("/@?# \t") != std::string_view::npos)
        return {};
    std::string out(name);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

host_guard::host_guard(std::vector<std::string> hosts, bool any) : any_(any) {
    for (auto& h : hosts)
        hosts_.push_back(hostname_of(h));
}

bool host_guard::allowed(std::string_view hostname) const {
    return !hostname.empty() && std::find(hosts_.begin(), hosts_.end(), hostname) != hosts_.end();
}

host_verdict host_guard::check(std::optional<std::string_view> host,
                               std::optional<std::string_view> origin) const {
    if (any_)
        return host_verdict::allowed;
    if (!host || !allowed(hostname_of(*host)))
        return host_verdict::forbidden_host;
    if (origin) {
        // An Origin is scheme://host[:port]; "null" and anything unparsable is foreign.
        auto sep = origin->find("://");
        if (sep == std::string_view::npos)
            return host_verdict::forbidden_origin;
        auto rest = origin->substr(sep + 3);
        rest = rest.substr(0, rest.find('/'));
        if (!allowed(hostname_of(rest)))
            return host_verdict::forbidden_origin;
    }
    return host_verdict::allowed;
}

} // namespace gate::transport
