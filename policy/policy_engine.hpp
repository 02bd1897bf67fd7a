// The authorization policy (spec: Policy section), compiled once per snapshot: deny by
// default, rules that grant invocations to the principals their subjects select, and deny
// entries that win over every grant. Entries may test a call's arguments, a tool's annotations
// and, through subjects, the token's scopes (docs/configuration.md, "Policy"). Plain C++; the
// authorize stage asks it about one invocation, the router about each listed item.
#pragma once

#include "config/model.hpp"
#include "policy/argument_match.hpp"
#include "policy/principal.hpp"
#include "protocol/tool_hints.hpp"

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gate::policy {

// What decided, for audit, the explain endpoint and `gate policy test`.
enum class decided_by : std::uint8_t {
    default_decision, // no rule matched: defaultDecision
    allow_entry,      // a rule's allow entry granted it
    deny_entry,       // a rule's deny entry refused it (whatever allowed it)
};

struct policy_decision {
    bool allowed = false;
    std::optional<std::string> rule_id; // the deciding rule; none for the default
    decided_by by = decided_by::default_decision;
    std::size_t entry = 0; // the index of the deciding entry in its rule's allow or deny
    // A default denial that a rule would turn into a grant if the token had these scopes (its
    // subjects' `scopes`): the caller may step up (MCP authorization, insufficient_scope).
    std::vector<std::string> needed_scopes;
    std::string step_up_rule; // the rule that grants it with them
};

// One invocation as policy sees it.
struct invocation {
    invocation(std::string_view server_, std::span<const std::string_view> methods_,
               std::string_view name_, std::string_view client_name_)
        : server(server_), methods(methods_), name(name_), client_name(client_name_) {}

    std::string_view server;
    // Every method whose grant covers it (a grant for resources/read covers subscribing to
    // what it may read: docs/security.md).
    std::span<const std::string_view> methods;
    std::string_view name;        // as the upstream knows it
    std::string_view client_name; // as the client sees it (namespaced)
    // The other spelling of a shortened name (the full namespaced name when the alias was
    // sent, and the alias when the full one was); empty when names are not shortened.
    std::string_view other_name;
    // The call's `arguments` (tools/call, prompts/get); null for a call without any.
    const boost::json::object* arguments = nullptr;
    // Whether to list the item rather than call it: the arguments are not known yet, so an
    // allow entry's argument conditions may still hold and a deny entry's may not.
    bool listing = false;
    // The tool's hints, for a tool (its annotations, or MCP's defaults); none for other items.
    std::optional<protocol::tool_hints> hints;
};

// `*` matches any run of characters (none included); everything else matches itself.
bool glob_match(std::string_view pattern, std::string_view text);

// Appends `part` to a key so that no two sequences of parts make the same key (its length
// first).
void append_key_part(std::string& key, std::string_view part);

class policy_engine {
public:
    explicit policy_engine(const config::policy& policy);

    // Whether `caller` (null: anonymous) may make the invocation.
    policy_decision decide(const principal* caller, const invocation& what) const;

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

    // The walks of the rules (decide, decide_server_request, decide_task) this thread has
    // made, of any engine: what a memo saves and a hot path costs, counted for tests and
    // benchmarks. Thread-local, so no thread's walk waits on another's count.
    static std::uint64_t walks_on_this_thread();

    std::size_t rules() const { return rules_.size(); }
    bool default_allows() const { return default_allow_; }
    // Whether any entry tests a call's arguments (a decision then depends on them) or a
    // tool's annotations.
    bool reads_arguments() const { return reads_arguments_; }
    bool reads_annotations() const { return reads_annotations_; }
    // Whether any entry for `server` (or every server) tests a tool's annotations: gate lists
    // that upstream's tools before deciding a call of one it never listed.
    bool reads_annotations_of(std::string_view server) const;

private:
    struct entry {
        std::string server; // "*": every upstream (deny entries)
        std::vector<std::string> methods, names;
        std::vector<argument_match> arguments;
        std::vector<std::pair<protocol::tool_hints::hint, bool>> annotations;
        bool conditional() const { return !arguments.empty() || !annotations.empty(); }
    };
    struct rule {
        std::string id;
        std::optional<config::subjects> subjects;
        std::vector<entry> allow, deny;
    };
    static entry compile(const config::grant& g);
    static bool covers(const entry& e, const invocation& what, bool deny);
    // The first rule selecting `caller` with a deny entry `refuses` accepts, else the first
    // with an allow entry `grants` accepts, else the default (with the scopes a rule that
    // would grant it needs, when `step_up`).
    template <class Refuses, class Grants>
    policy_decision first_match(const principal* caller, std::string_view server, Refuses&& refuses,
                                Grants&& grants, bool step_up) const;

    bool default_allow_ = false;
    bool has_deny_ = false;
    bool reads_arguments_ = false, reads_annotations_ = false;
    std::vector<rule> rules_;
    // What of a principal any rule's subjects read (append_principal_key).
    bool reads_subs_ = false, reads_issuers_ = false, reads_groups_ = false;
    std::vector<std::string> claim_names_;
};

} // namespace gate::policy
