// Stage 1 of the pipeline: the Host/Origin allowlist (DNS-rebinding protection).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::transport {

enum class host_verdict { allowed, forbidden_host, forbidden_origin };

class host_guard {
public:
    host_guard(std::vector<std::string> hosts, bool any);
    // Host and Origin as received (absent header: nullopt). Ports are ignored.
    host_verdict check(std::optional<std::string_view> host,
                       std::optional<std::string_view> origin) const;

private:
    // Whether a Host value (or an Origin's authority) names one of hosts_, case aside.
    bool allowed(std::string_view header_value) const;
    std::vector<std::string> hosts_;
    bool any_;
};

// "example.com:8080" -> "example.com", "[::1]:80" -> "::1"; lowercased.
std::string hostname_of(std::string_view host_header);

} // namespace gate::transport
