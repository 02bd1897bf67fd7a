// Opaque list cursors. A cursor carries the list it pages, the fingerprint of the merged list
// it was cut from, the offset of the next page and the caller it was issued to, sealed with a
// keyed MAC so a client can neither forge one nor reuse another caller's.
#pragma once

#include "protocol/list_kind.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gate::protocol {

struct cursor {
    list_kind kind;
    std::uint64_t fingerprint; // of the merged list; a different one means the cursor is stale
    std::uint32_t offset;
    std::uint64_t principal; // hash of the caller's identity
};

class cursor_codec {
public:
    using key_type = std::array<unsigned char, 32>;
    explicit cursor_codec(key_type key) : key_(key) {}
    static cursor_codec with_random_key();

    std::string encode(const cursor& c) const;
    // nullopt for anything this codec did not mint (garbage, truncated, tampered).
    std::optional<cursor> decode(std::string_view text) const;

private:
    key_type key_;
};

std::uint64_t principal_hash(std::string_view issuer, std::string_view subject);

} // namespace gate::protocol
