// A user's tokens as the fleet's shared store holds them (docs/user-accounts.md): their fields
// as a small JSON object, sealed (protocol/sealed_box) under the vault key with the record's
// name as associated data. Plain C++.
#pragma once

#include "gateway/accounts/account_vault.hpp"
#include "protocol/sealed_box.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway::accounts {

std::string seal_tokens(const account_tokens& tokens, const protocol::sealing_key& key,
                        std::string_view name);
std::optional<account_tokens> open_tokens(std::string_view record,
                                          const std::vector<protocol::sealing_key>& keys,
                                          std::string_view name);

} // namespace gate::gateway::accounts
