// Discovery (spec: Discovery section): the document a discovery source serves,
// `{"upstreams": [...]}`, joins the configured upstreams, and the merged document is validated
// whole, exactly as a configuration file is, so a document that does not validate never
// partially applies. Then the containment of the discovery section
// (config/discovery_containment): a discovered upstream that asks for a strategy, secret,
// credential host or header the configuration does not allow is left out of the merged
// document, and the rest of it applies.
#pragma once

#include "config/load.hpp"

#include <string_view>

namespace gate::config {

// A discovered upstream the containment left out, with every field it was refused for.
struct refused_upstream {
    std::size_t index = 0;     // in the served document's `upstreams`
    std::string id;            // its id, for the log line
    std::vector<error> errors; // at "discovered /upstreams/<index>/..."
};

struct merge_result {
    std::shared_ptr<const document> doc;   // null when the document is rejected whole
    std::vector<error> errors;             // why it was rejected; empty when `doc` is set
    std::vector<refused_upstream> refused; // entries left out of `doc`, in served order
};

// `configured`: the document as configured (its source text is merged into); `served`: the
// body the discovery source answered. Errors about discovered entries are reported at
// "discovered /upstreams/<i>/...", pointers into the served document. The merged document's
// discovered upstreams say so (upstream::discovered).
merge_result merge_discovered(const document& configured, std::string_view served);

// The refusals on one line each: `the discovered upstream "x" is refused (...): <errors>`.
std::vector<std::string> refusal_lines(const std::vector<refused_upstream>& refused);

} // namespace gate::config
