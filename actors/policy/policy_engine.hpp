// The authorization policy (spec: Policy section), compiled once per snapshot: deny by
// default, rules that grant invocations to the principals their subjects select. Plain C++;
// the authorize stage asks it about one invocation, the router about each listed item.
#pragma once

#include "actors/policy/principal.hpp"
#include "config/model.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gate {

struct policy_decision {
    bool allowed = false;
    std::optional<std::string> rule_id; // the rule that granted it; none for the default
};

// `*` matches any run of characters (none included); everything else matches itself.
bool glob_match(std::string_view pattern, std::string_view text);

// Appends `part` to a key so that no two sequences of parts make the same key (its length
// first).
void append_key_part(std::string& key, std::string_view part);

class policy_engine {
public:
    explicit policy_engine(const config::policy& policy);

    // Whether `caller` (null: anonymous) may invoke `method` on upstream `server` for the item
    // named `name` as the upstream knows it, or `client_name` as the client sees it
    // (namespaced). `methods` lists every method whose grant covers the invocation (a grant
    // for resources/read covers subscribing to what it may read: docs/security.md).
    policy_decision decide(const principal* caller, std::string_view server,
                           std::span<const std::string_view> methods, std::string_view name,
                           std::string_view client_name) const;

    // Whether upstream `server` may send the request `method` (sampling/createMessage,
    // elicitation/create, roots/list) to `caller`'s client: granted by an entry for that
    // server that lists the method, or that omits both `methods` and `names` (everything on
    // the server). An entry restricted by names grants items, not what the server asks.
    policy_decision decide_server_request(const principal* caller, std::string_view server,
                                          std::string_view method) const;

    // Whether `caller` may use the task method `method` (tasks/get, tasks/result, tasks/cancel,
    // tasks/update, tasks/list) at upstream `server`: granted by an entry for that server that
    // lists the method, or lists tools/call (a task is what a call became), or lists no
    // methods. Names do not restrict it (a task id is no tool's name); ownership still keeps
    // each principal to its own tasks (docs/security.md).
    policy_decision decide_task(const principal* caller, std::string_view server,
                                std::string_view method) const;

    // Appends to `key` what of `caller` (null: anonymous) the rules' subjects read, and nothing
    // else: two callers with the same key get the same decisions (policy_memo).
    void append_principal_key(std::string& key, const principal* caller) const;

    std::size_t rules() const { return rules_.size(); }
    bool default_allows() const { return default_allow_; }

private:
    struct rule {
        std::string id;
        std::optional<config::subjects> subjects;
        std::vector<config::grant> allow;
    };
    // The first rule selecting `caller` with an entry for `server` that `grants` accepts.
    template <class Grants>
    policy_decision first_grant(const principal* caller, std::string_view server,
                                Grants&& grants) const;

    bool default_allow_ = false;
    std::vector<rule> rules_;
    // What of a principal any rule's subjects read (append_principal_key).
    bool reads_subs_ = false, reads_issuers_ = false, reads_groups_ = false;
    std::vector<std::string> claim_names_;
};

} // namespace gate
