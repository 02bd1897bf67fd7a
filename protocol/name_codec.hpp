// `{namespace}{separator}{name}`: how tool and prompt names of several upstreams share one
// list. Namespaces never contain the separator (validated), so the longest matching
// namespace prefix is the only possible owner.
//
// Opt-in (routing.maxNameLength), a name longer than the maximum is listed as a short alias:
// its first characters, '-', and 8 hex digits of SHA-256 of the whole name. The alias is the
// same on every instance and after every restart, and it is reversed from the upstream's list
// (the one name there whose alias it is), so nothing else has to be remembered.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::protocol {

// '-' and the digest's hex digits end every alias.
inline constexpr std::size_t alias_digest_digits = 8;
inline constexpr std::size_t alias_suffix = 1 + alias_digest_digits;

struct decoded_name {
    std::size_t upstream; // index into the namespaces given to the codec
    std::string_view name;
    // The name has the shape of a short alias: the upstream's own name may be another one,
    // found in its list (actors/federation, name_aliases.cpp).
    bool maybe_alias = false;
};

class name_codec {
public:
    // namespaces[i] is the namespace of upstream i; nullopt means passthrough (no prefix).
    // max_length 0: names are never shortened.
    name_codec(std::string separator, std::vector<std::optional<std::string>> namespaces,
               std::size_t max_length = 0);

    // The prefixed name (a ui:// URI's path is prefixed so too, never shortened).
    std::string encode(std::size_t upstream, std::string_view name) const;
    // The name a client sees for a tool or prompt: encoded, then shortened when longer than
    // the maximum.
    std::string client_name(std::size_t upstream, std::string_view name) const;
    std::optional<decoded_name> decode(std::string_view full) const;
    bool passthrough() const { return passthrough_; }
    std::size_t max_length() const { return max_length_; }

private:
    // Heterogeneous lookup: a name's prefix is looked up as a view, never copied.
    struct text_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::string separator_;
    std::vector<std::optional<std::string>> namespaces_;
    // Each namespace's upstream: decode looks up the text before each separator in a name,
    // so routing a call costs the same with a thousand upstreams as with two.
    std::unordered_map<std::string, std::size_t, text_hash, std::equal_to<>> by_namespace_;
    std::size_t longest_namespace_ = 0; // no prefix longer is looked up: a name's length, hostile
                                        // or not, costs one search of it
    bool passthrough_;
    std::size_t max_length_;
};

// `full` cut to `max` characters with the alias suffix (full itself when it fits, or when it
// holds a byte outside ASCII, which a cut could split).
std::string short_alias(std::string_view full, std::size_t max);
// Whether `full` could be an alias `short_alias` wrote for a maximum of `max`.
bool has_alias_shape(std::string_view full, std::size_t max);

} // namespace gate::protocol
