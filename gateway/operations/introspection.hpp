// The introspection endpoints (spec: Endpoints rules 4 and 7, Introspection endpoints):
// GET /api/federation, the federation as the gateway serves it, for an authenticated viewer;
// GET /api/auth-hint, the public facts a sign-in needs. Field names are gate's decision
// (docs/operations.md, Introspection); neither ever holds a secret (not even a secret's
// environment variable name: a credential is reported by its strategy only).
#pragma once

#include "actors/policy/principal.hpp"
#include "config/model.hpp"
#include "gateway/program/discovery_poller.hpp"

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::transport {

// The authenticated views (stages 2 and 3 admit the viewer: pipeline::door::view).
inline bool is_view_path(std::string_view path) {
    return path == "/api/federation" || path == "/api/explain" || path == "/api/traffic" ||
           path == "/api/catalog";
}

struct federation_facts {
    const config::document& doc;
    std::uint64_t snapshot = 0;
    const boost::json::object& health; // the /health report of this snapshot's upstreams
    const discovery_status* discovery = nullptr;
    bool shared_store = false, shared_store_up = false;
    const caller_ref& viewer;
    const std::optional<std::string>& tenant; // the viewer's, when one resolves
    // Each upstream's identity as its handshake told it (server_identity), in the document's
    // order; empty (or missing) where gate has not met the upstream yet.
    const std::vector<boost::json::object>* identities = nullptr;
};

// What /api/federation shows of an upstream's own identity from its handshake's answer
// (`serverInfo`'s name, title, version, websiteUrl and icons, and `protocolVersion`); empty
// when it answered none. Its icons are as given: the caller rewrites them for gate's origin.
boost::json::object server_identity(const boost::json::object& handshake);

boost::json::object federation_snapshot(const federation_facts& f);

// `own_issuer`: the gateway's own token issuer with auth.ema (it mints the tokens /mcp takes).
boost::json::object auth_hint(const config::document& doc,
                              const std::optional<std::string>& own_issuer);

} // namespace gate::transport
