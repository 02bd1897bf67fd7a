// Discovery containment (docs/configuration.md, Discovery): what a discovered upstream may use
// of gate's, closed unless the configuration names it. A registry is somebody else's system:
// an entry it serves must not be able to take a secret from gate's environment, send
// credentials to a host the operator never named, or receive callers' own tokens. The three
// lists of the discovery section open those doors one name at a time:
//   allowedStrategies       auth strategies other than "none" (always allowed)
//   allowedSecretRefs       environment variables a secretRef may name
//   allowedCredentialHosts  hosts an entry with any strategy but "none" may reach (each
//                           endpoint and the token endpoint)
// (a static secret never goes in a header that frames or routes a request, for any upstream:
// config/checks), and an entry may not ask for a health probe more than once a second.
#pragma once

#include "config/load.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gate::config {

// The shortest healthCheck.intervalMs a discovered upstream may ask for.
inline constexpr std::int64_t min_discovered_probe_ms = 1000;

// Why `u`, served by the discovery source, may not be used under `d`: one error per field that
// asks for something not allowed, at `at` + the field's pointer ("discovered /upstreams/2" +
// "/auth/secretRef"). Empty: within the containment.
std::vector<error> containment_errors(const discovery& d, const upstream& u, const std::string& at);

// What `d` lets a discovered upstream use, as lines for --validate and the log: the lists by
// name, or, with none set, that only credential-less upstreams are taken and how to allow more;
// then a note for each list that cannot take effect without another.
std::vector<std::string> containment_summary(const discovery& d);

} // namespace gate::config
