// Unguessable identifiers (session ids): 128 bits from OpenSSL's CSPRNG, as hex.
#pragma once

#include <string>

namespace gate::protocol {

std::string random_id();

} // namespace gate::protocol
