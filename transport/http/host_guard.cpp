#include "transport/http/host_guard.hpp"

#include <algorithm>

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
                       [](char c) { return c >= '0' && c <= '9'; });
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool never_in_a_name(char c) {
    return c == '/' || c == '@' || c == '?' || c == '#' || c == ' ' || c == '\t';
}

// The host name inside a Host header's value (or an Origin's authority), as written; empty
// when the value is no authority. Read in place, in one pass: every request is checked by it.
std::string_view name_in(std::string_view h) {
    std::string_view name = h;
    if (h.starts_with('[')) {
        auto close = h.find(']');
        if (close == std::string_view::npos || !port_ok(h.substr(close + 1)))
            return {};
        name = h.substr(1, close - 1);
        // A host name never holds these; a header that does is refused, never trimmed.
        if (std::any_of(name.begin(), name.end(), never_in_a_name))
            return {};
    } else {
        // One colon: host and port. More than one: a bare IPv6 address (no port possible).
        std::size_t colon = std::string_view::npos;
        bool several = false;
        for (std::size_t i = 0; i < h.size(); ++i) {
            if (h[i] == ':') {
                several = several || colon != std::string_view::npos;
                colon = colon == std::string_view::npos ? i : colon;
            } else if (never_in_a_name(h[i])) {
                return {}; // refused, never trimmed (a port holds digits only anyway)
            }
        }
        if (colon != std::string_view::npos && !several) {
            if (!port_ok(h.substr(colon)))
                return {};
            name = h.substr(0, colon);
        }
    }
    return name;
}

} // namespace

std::string hostname_of(std::string_view h) {
    std::string out(name_in(h));
    std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
    return out;
}

host_guard::host_guard(std::vector<std::string> hosts, bool any) : any_(any) {
    for (auto& h : hosts)
        hosts_.push_back(hostname_of(h));
}

bool host_guard::allowed(std::string_view header_value) const {
    auto name = name_in(header_value);
    auto same = [name](const std::string& host) {
        return host.size() == name.size() &&
               std::equal(host.begin(), host.end(), name.begin(),
                          [](char a, char b) { return a == ascii_lower(b); });
    };
    return !name.empty() && std::any_of(hosts_.begin(), hosts_.end(), same);
}

host_verdict host_guard::check(std::optional<std::string_view> host,
                               std::optional<std::string_view> origin) const {
    if (any_)
        return host_verdict::allowed;
    if (!host || !allowed(*host))
        return host_verdict::forbidden_host;
    if (origin) {
        // An Origin is scheme://host[:port]; "null" and anything unparsable is foreign.
        auto sep = origin->find("://");
        if (sep == std::string_view::npos)
            return host_verdict::forbidden_origin;
        auto rest = origin->substr(sep + 3);
        rest = rest.substr(0, rest.find('/'));
        if (!allowed(rest))
            return host_verdict::forbidden_origin;
    }
    return host_verdict::allowed;
}

} // namespace gate::transport
