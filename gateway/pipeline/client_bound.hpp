// The judge of what gate sends a client on an upstream's behalf (docs/security.md, "Toward a
// client"): a result, judged by the decision hook asked at results; an upstream's request to
// the client, decided by the policy's rules for server-initiated requests, then by the hook
// asked at serverRequest; egress, the icons a result's resource links name. A 2026-07-28 task
// carries both (its result inline, its input requests), and is judged the same wherever the client
// meets it: a call's answer, tasks/get, a listen's notifications/tasks, or the upstream an answer
// to it goes to (tasks/update). Every producer of client-bound messages is listed, with the judge
// it passes, in scripts/check-client-bound.py, which ctest runs.
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/step.hpp"
#include "policy/decision_hook.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gate::config {
struct decision_hook;
}

namespace gate::gateway {
class hook_asker;
}

namespace gate::gateway::pipeline {

class icon_rewriter; // call_services.hpp

class client_bound {
public:
    // `hooks`: where policy.decisionHook is asked (null: never); `icons`: where a result's
    // icons are rewritten for gate's origin (null only in tests of the rest).
    client_bound(hook_asker* hooks, icon_rewriter* icons) : hooks_(hooks), icons_(icons) {}

    // The hook, when it is asked about results on ctx's view; else null.
    const config::decision_hook* result_hook(const request_context& ctx) const;
    // The hook's say on `answer` (a JSON-RPC answer, its `result` or `error` judged; or a
    // 2026-07-28 task, whose `result` is the call's), an answer of `server` about
    // `upstream_name`: withheld (ctx answered with the refusal, `answered`) unless allowed.
    // `what`: the invocation in words, for the refusal's text; `answer_text`: the text
    // `answer` was read from, where the hook reads it as written (empty: none).
    boost::asio::awaitable<verdict> judge_result(request_context& ctx,
                                                 const boost::json::object& answer,
                                                 std::string_view server,
                                                 std::string_view upstream_name, std::string what,
                                                 std::string_view answer_text = {});

    // Whether ctx's upstream answer asks the client for input (result.resultType
    // input_required on a method the revision lets ask) while something judges such requests.
    // Reads no more of the answer than a search for its key: every call's answer passes here.
    bool answer_asks_input(const request_context& ctx) const;
    // Whether anything judges an upstream's requests to clients on ctx's view: the policy, or
    // the hook asked at serverRequest.
    bool judges_input(const request_context& ctx) const;
    // Each of `requests` (an inputRequests object, keyed as the upstream wrote them) judged in
    // order; `only`, when given, the keys judged (an update's answers; one `requests` lacks is
    // refused as invalid_params before any is judged). The first refused answers ctx
    // in place of what carried it (server_request_denied, or the hook's refusal), audited as
    // denied; `answered` then. A malformed inputRequests is refused as `server`'s fault.
    boost::asio::awaitable<verdict> judge_input_requests(request_context& ctx,
                                                         const boost::json::value* requests,
                                                         std::string_view server,
                                                         const boost::json::object* only = nullptr);
    // A 2026-07-28 task (a tasks/get result, a notifications/tasks' params) as `server` tells
    // of task `task_id`: its inline result judged as a result, its inputRequests as requests.
    boost::asio::awaitable<verdict> judge_task(request_context& ctx,
                                               const boost::json::object& task,
                                               const std::string& task_id, std::string_view server);

    // Egress of a call's or a prompt's result, however it reaches the client (stage 8's
    // answer; a task's result at tasks/result, inline in tasks/get, pushed to a listen): its
    // resource links name their icons from gate's origin as list items do, and an icon of
    // another origin or scheme is left out. `text`: the answer as the upstream wrote it; true
    // when it may need that on `snap` (not passthrough, and it names icons: a search, no walk).
    bool links_icons(const actors::snapshot& snap, std::string_view text) const;
    // `result` (`shape`) from upstream `upstream` of `snap` so rewritten; true when anything
    // was. `what`: the method that carried it, for the log. An upstream `snap` does not have
    // (a reload removed it; an index past its upstreams) keeps no icon.
    enum class linked { call, prompt };
    bool link_icons(const actors::snapshot& snap, std::size_t upstream, std::string_view what,
                    linked shape, boost::json::object& result) const;
    // The same for a call's result from the upstream configured as `upstream_id` (a task's,
    // told by its owner's id).
    bool link_icons(const actors::snapshot& snap, const std::string& upstream_id,
                    std::string_view what, boost::json::object& result) const;

private:
    hook_asker* hooks_;
    icon_rewriter* icons_;
};

// `text` (a message as written, numbers and all) written again from `message`, an amended
// reading of it: only what was amended changes.
void write_again(std::string& text, const boost::json::object& message);

// The policy's rules for server-initiated requests on `request_method` from `server` to the
// client of `who` (null: anonymous): nullopt when they let it through (or `snap` has no
// policy), else the refusal's text (server_request_denied). Every path an upstream's request
// takes to a client asks here: a session's stream, a call's, an input request.
std::optional<std::string> server_request_refused(const actors::snapshot& snap,
                                                  const principal* who, std::string_view server,
                                                  std::string_view request_method);
// The hook asked at serverRequest in `snap`, where `hooks` can ask it (null: never); else null.
const config::decision_hook* server_request_hook(const actors::snapshot& snap,
                                                 const hook_asker* hooks);

// Who `asker` (a request gate keeps answering after it was read: a listen) is, judged on
// `now`, the federation as it is when a message goes out: its caller and trace kept, its tenant
// placed again by `now`'s tenants. A reload applies to every later client-bound message, not
// from the next listen on (docs/security.md, "Toward a client").
request_context judged_now(const request_context& asker,
                           std::shared_ptr<const federation_view> now);

// The hook's serverRequest question about `request`, an upstream's request to the client of
// `who` (null: anonymous) from `server`: the same on every path, a session's stream, a call's,
// an input request (`request` outlives the question).
policy::hook_question server_request_question(const principal* who, std::string_view server,
                                              const boost::json::object& request,
                                              const config::decision_hook& hook);

// A task judged refused, as the client is told of it where a task goes (a listen's
// notifications/tasks): `task` failed with the refusal (`refused`, a JSON-RPC answer's
// error) for its error, its result and inputRequests gone. 2026-07-28 shapes.
boost::json::object refused_task(const boost::json::object& task,
                                 const boost::json::object& refused);

} // namespace gate::gateway::pipeline
