// `{namespace}{separator}{name}`: how tool and prompt names of several upstreams share one
// list. Namespaces never contain the separator (validated), so the longest matching
// namespace prefix is the only possible owner.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::protocol {

struct decoded_name {
    std::size_t upstream; // index into the namespaces given to the codec
    std::string_view name;
};

class name_codec {
public:
    // namespaces[i] is the namespace of upstream i; nullopt means passthrough (no prefix).
    name_codec(std::string separator, std::vector<std::optional<std::string>> namespaces);

    std::string encode(std::size_t upstream, std::string_view name) const;
    std::optional<decoded_name> decode(std::string_view full) const;
    bool passthrough() const { return passthrough_; }

private:
    std::string separator_;
    std::vector<std::optional<std::string>> namespaces_;
    bool passthrough_;
};

} // namespace gate::protocol
