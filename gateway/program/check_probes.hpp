// The tries of `gate check` (docs/operations.md, "gate check"): everything outside gate that a
// configuration names, each tried once with the client gate itself uses for it, all at once
// on an io_context of their own, each within a bound. No actor system and no listener: the
// upstream clients run without their guard actors (which fail open), so a try is exactly the
// exchange gate would make.
#pragma once

#include "config/model.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace gate::gateway::program::check {

// One thing tried, as `gate check` prints it.
struct row {
    std::string kind;   // upstream | token | issuer | store | audit | tracing | discovery | secret
    std::string name;   // the upstream's id, the issuer, the sink's place in the document, ...
    std::string target; // the URL tried, without credentials
    std::string status; // ok | down
    std::string detail; // what answered (ok) or what failed (down)
    std::string hint;   // what to do about it; empty when ok
    // What the try could not reach ("" when nothing): at an upstream that takes each caller's
    // credential, everything a caller's token would open.
    std::string unchecked;
    std::chrono::milliseconds took{0};
};

using env_reader = std::function<const char*(const char*)>;

// Every try of `doc` within `timeout` each (a discovered upstream's after the source answered),
// rows in the document's order: upstreams, issuers, the shared store, audit webhooks, the OTLP
// collector, the discovery source, secrets missing that no other row stands for, then the
// discovered upstreams.
std::vector<row> run_checks(const config::document& doc, std::chrono::milliseconds timeout,
                            const env_reader& getenv);

} // namespace gate::gateway::program::check
