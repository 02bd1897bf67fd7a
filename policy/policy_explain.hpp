// Which rule decides an invocation, and why, as gate's stages would decide it: the tenant's
// view of upstreams first, then the policy (deny entries, grants, the default, a step-up).
// Plain C++ over a snapshot's parts; `gate policy test` (gateway/program/policy_command) asks
// it about the cases of a file, GET /api/explain about the caller's own invocation.
#pragma once

#include "config/model.hpp"
#include "policy/policy_engine.hpp"
#include "policy/tenant_resolver.hpp"
#include "protocol/name_codec.hpp"
#include "protocol/tool_hints.hpp"

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::policy {

// What a snapshot decides with.
struct policy_world {
    const config::document& doc;
    const policy_engine* policy = nullptr; // null: no policy section (nothing is denied)
    const protocol::name_codec& codec;
    const tenant_resolver* tenants = nullptr;
};

// One invocation as a client makes it: a tool or prompt by its listed name (or its own `name`
// with `server`), a resource by `uri` with `server`, any other method by `server`.
struct explain_request {
    std::string method;
    std::string name;
    std::string uri;
    std::string server;
    std::optional<boost::json::object> arguments;
    // A tool's hints as its upstream declares them; MCP's defaults when unknown.
    std::optional<protocol::tool_hints> hints;
    // Decided as a list shows the item (an allow entry's argument conditions may still hold,
    // a deny entry's may not: invocation::listing), not as a call with `arguments`.
    bool listing = false;
    // `name` has the shape of a short alias (routing.maxNameLength) and was looked for among
    // the names its upstream last listed, in vain: decided as sent. Without the look, such a
    // name is refused (ask by the tool's own name), since deciding the alias itself would
    // answer for a name no call is decided by.
    bool alias_checked = false;
};

struct explained {
    bool allowed = false;
    std::string server, own_name, client_name;
    std::optional<std::string> tenant; // the caller's, when one resolves
    bool hidden_by_tenant = false;
    policy_decision decision;
    std::string entry;  // the deciding entry's JSON pointer in the document ("" for none)
    std::string reason; // one sentence
};

// The explanation, or why the request cannot be decided (an unknown upstream or namespace, a
// missing name).
std::variant<explained, std::string> explain(const policy_world& world, const principal* caller,
                                             const explain_request& what);

boost::json::object explanation_json(const explained& e);

// Why an invocation of an upstream id, or of a name in a namespace, that no configured upstream
// owns cannot be explained. GET /api/explain answers for an upstream the caller's tenant does
// not see in these words too.
std::string unknown_upstream_text(std::string_view server);
std::string unknown_namespace_text(std::string_view name);

} // namespace gate::policy
