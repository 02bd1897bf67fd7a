// Discovery (spec: Discovery section): the document a discovery source serves,
// `{"upstreams": [...]}`, joins the configured upstreams, and the merged document is validated
// whole, exactly as a configuration file is, so a bad one never partially applies. Then the
// containment the `discovery.allowed*` fields ask for: a discovered upstream may only name the
// secrets in `allowedSecretRefs` and send credentials only to `allowedCredentialHosts`.
#pragma once

#include "config/load.hpp"

#include <string_view>

namespace gate::config {

// `configured`: the document as configured (its source text is merged into); `served`: the
// body the discovery source answered. Errors about discovered entries are reported at
// "discovered /upstreams/<i>/...", pointers into the served document. The merged document's
// discovered upstreams say so (upstream::discovered).
load_result merge_discovered(const document& configured, std::string_view served);

} // namespace gate::config
