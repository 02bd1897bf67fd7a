#include "protocol/name_codec.hpp"

namespace gate::protocol {

name_codec::name_codec(std::string separator, std::vector<std::optional<std::string>> namespaces)
    : separator_(std::move(separator)), namespaces_(std::move(namespaces)),
      passthrough_(namespaces_.size() == 1 && !namespaces_[0]) {}

std::string name_codec::encode(std::size_t upstream, std::string_view name) const {
    const auto& ns = namespaces_.at(upstream);
    if (!ns)
        return std::string(name);
    std::string out;
    out.reserve(ns->size() + separator_.size() + name.size());
    out.append(*ns).append(separator_).append(name);
    return out;
}

std::optional<decoded_name> name_codec::decode(std::string_view full) const {
    if (passthrough_)
        return decoded_name{0, full};
    std::optional<decoded_name> best;
    std::size_t best_len = 0;
    for (std::size_t i = 0; i < namespaces_.size(); ++i) {
        const auto& ns = namespaces_[i];
        if (!ns || ns->size() < best_len)
            continue;
        auto prefix_len = ns->size() + separator_.size();
        if (full.size() <= prefix_len || !full.starts_with(*ns) ||
            full.substr(ns->size(), separator_.size()) != separator_)
            continue;
        best = decoded_name{i, full.substr(prefix_len)};
        best_len = ns->size();
    }
    return best;
}

} // namespace gate::protocol
