// AES-256-GCM sealing of a secret kept where others can read (the fleet's shared store):
// "v1.<key id>.<base64url(nonce | ciphertext | tag)>", with associated data the caller names
// (the record's own name, so a record copied under another name does not open) and the key's
// id in front, so a rotated key still opens what the previous one sealed. Plain C++ on OpenSSL.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::protocol {

struct sealing_key {
    std::array<unsigned char, 32> bytes{};
    std::string id; // the first 8 hex digits of SHA-256 of the key
};

// A key as an operator gives it: 32 bytes in base64 or base64url, or 64 hex digits; or why it
// is not one (never the value).
std::variant<sealing_key, std::string> read_sealing_key(std::string_view text);

std::string seal(std::string_view plain, const sealing_key& key, std::string_view associated);
// The plain text, when one of `keys` sealed `record` with `associated` and nothing changed.
std::optional<std::string> open_sealed(std::string_view record,
                                       const std::vector<sealing_key>& keys,
                                       std::string_view associated);

} // namespace gate::protocol
