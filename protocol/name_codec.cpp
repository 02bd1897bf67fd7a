#include "protocol/name_codec.hpp"

#include "protocol/digest.hpp"

#include <algorithm>

namespace gate::protocol {

name_codec::name_codec(std::string separator, std::vector<std::optional<std::string>> namespaces,
                       std::size_t max_length)
    : separator_(std::move(separator)), namespaces_(std::move(namespaces)),
      passthrough_(namespaces_.size() == 1 && !namespaces_[0]), max_length_(max_length) {
    by_namespace_.reserve(namespaces_.size());
    for (std::size_t i = 0; i < namespaces_.size(); ++i)
        if (namespaces_[i]) {
            by_namespace_.insert_or_assign(*namespaces_[i], i); // a repeated one: the last
            longest_namespace_ = std::max(longest_namespace_, namespaces_[i]->size());
        }
}

std::string name_codec::encode(std::size_t upstream, std::string_view name) const {
    const auto& ns = namespaces_.at(upstream);
    if (!ns)
        return std::string(name);
    std::string out;
    out.reserve(ns->size() + separator_.size() + name.size());
    out.append(*ns).append(separator_).append(name);
    return out;
}

std::string name_codec::client_name(std::size_t upstream, std::string_view name) const {
    auto full = encode(upstream, name);
    if (max_length_ == 0 || full.size() <= max_length_)
        return full;
    return short_alias(full, max_length_);
}

std::optional<decoded_name> name_codec::decode(std::string_view full) const {
    bool alias = max_length_ > 0 && has_alias_shape(full, max_length_);
    if (passthrough_)
        return decoded_name{0, full, alias};
    // The longest namespace that, followed by the separator, starts the name: each
    // separator's place in the name, first to last, is a longer candidate, up to the longest
    // namespace there is (configurations refuse a namespace holding the separator, so the
    // first place is nearly always the only one).
    std::optional<decoded_name> best;
    if (separator_.empty())
        return best;
    for (auto at = full.find(separator_); at != std::string_view::npos && at <= longest_namespace_;
         at = full.find(separator_, at + 1)) {
        auto rest = at + separator_.size();
        if (rest >= full.size())
            break;
        if (auto it = by_namespace_.find(full.substr(0, at)); it != by_namespace_.end())
            best = decoded_name{it->second, full.substr(rest), alias};
    }
    return best;
}

std::string short_alias(std::string_view full, std::size_t max) {
    // A name of other characters than ASCII is not cut (a cut could split one in two); tool
    // names of such characters are left out of federated lists anyway (tool_name.hpp).
    bool ascii = std::all_of(full.begin(), full.end(),
                             [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (full.size() <= max || max <= alias_suffix || !ascii)
        return std::string(full);
    std::string out(full.substr(0, max - alias_suffix));
    out += '-';
    out += sha256_hex(full, alias_digest_digits);
    return out;
}

bool has_alias_shape(std::string_view full, std::size_t max) {
    if (full.size() != max || max <= alias_suffix || full[max - alias_suffix] != '-')
        return false;
    auto digits = full.substr(max - alias_digest_digits);
    return std::all_of(digits.begin(), digits.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

} // namespace gate::protocol
