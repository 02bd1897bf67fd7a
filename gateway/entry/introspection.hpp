// The introspection endpoints (spec: Endpoints rules 4 and 7, Introspection endpoints):
// GET /api/federation, the federation as the gateway serves it, for an authenticated viewer;
// GET /api/auth-hint, the public facts a sign-in needs. Field names are gate's decision
// (docs/operations.md, Introspection); neither ever holds a secret (not even a secret's
// environment variable name: a credential is reported by its strategy only).
#pragma once

#include "config/model.hpp"
#include "policy/principal.hpp"
#include "transport/http/http_reply.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway {

// What discovery's last poll found, for /api/federation (io thread only): written by the poller
// (gateway/program/discovery_poller), read by the view.
struct discovery_status {
    std::string last_outcome; // applied | unchanged | rejected | error; empty before the first
    std::chrono::system_clock::time_point last_at{};
    std::string last_problem; // why the last poll failed or was rejected, or what it left out
    bool outage = false;      // fetches failing since the last that went through
};

// What discovery's last poll found: written by the poller (on the first io thread), read by
// /api/federation on any (docs/io-threads.md).
class discovery_report {
public:
    void set(discovery_status now) {
        std::lock_guard lock(mutex_);
        now_ = std::move(now);
    }
    discovery_status get() const {
        std::lock_guard lock(mutex_);
        return now_;
    }

private:
    mutable std::mutex mutex_;
    discovery_status now_;
};

struct federation_facts {
    const config::document& doc;
    std::uint64_t snapshot = 0;
    const boost::json::object& health; // the /health report of this snapshot's upstreams
    const discovery_status* discovery = nullptr;
    bool shared_store = false, shared_store_up = false;
    const policy::caller_ref& viewer;
    const std::optional<std::string>& tenant; // the viewer's, when one resolves
    // Each upstream's identity as its handshake told it (server_identity), in the document's
    // order; empty (or missing) where gate has not met the upstream yet.
    const std::vector<boost::json::object>* identities = nullptr;
    // Whether the viewer's tenant sees an upstream, by id (tenants[].upstreams): one it does
    // not see is left out whole, as lists and routing leave it out. Empty: it sees them all.
    std::function<bool(std::string_view)> sees = {};
};

// What /api/federation shows of an upstream's own identity from its handshake's answer
// (`serverInfo`'s name, title, version, websiteUrl and icons, and `protocolVersion`); empty
// when it answered none. Its icons are as given: the caller rewrites them for gate's origin.
boost::json::object server_identity(const boost::json::object& handshake);

boost::json::object federation_snapshot(const federation_facts& f);

// `own_issuer`: the gateway's own token issuer with auth.ema (it mints the tokens /mcp takes).
boost::json::object auth_hint(const config::document& doc,
                              const std::optional<std::string>& own_issuer);

class token_endpoint;
// GET /api/auth-hint: the hint as JSON (`tokens`: gate's own issuer, null without auth.ema).
transport::http_reply auth_hint_reply(const config::document& doc, const token_endpoint* tokens);
// The console's pages (introspection_routes.cpp): /console redirects to /console/, an asset
// is served with the console's policy headers; nullopt for anything else (404).
std::optional<transport::http_reply> console_page(std::string_view path);

} // namespace gate::gateway
