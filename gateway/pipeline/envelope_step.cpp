// The entry's envelope step: a 2026-07-28 request has no session; what it must carry instead is
// its envelope, the protocol revision and capabilities in `_meta` mirrored in headers
// (protocol/modern_request), and a method that revision still has. Refusals are 400 or 404 in
// that revision's codes, audited under the request's method.
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/entry_steps.hpp"
#include "protocol/modern_request.hpp"

namespace gate::gateway::pipeline {

namespace {

namespace json = boost::json;

// Methods 2026-07-28 removed (and the tasks extension's predecessors of its own methods): a
// client of that revision gets 404 and -32601 for them, in passthrough too, where gate would
// otherwise answer the task methods itself.
bool removed_in_modern(std::string_view method) {
    return method == "initialize" || method == "ping" || method == "logging/setLevel" ||
           method == "resources/subscribe" || method == "resources/unsubscribe" ||
           method == "tasks/result" || method == "tasks/list";
}

// The requests a 2026-07-28 client may send a federation: the revision's methods gate serves,
// and the tasks extension's methods (gate routes them to the task's owner; the extension has
// no tasks/result or tasks/list). Any other is not a method of
// the revision gate speaks: 404 and -32601 before anything runs. In passthrough a request
// goes to the one upstream, whose own methods gate does not know (the policy decides, as in a
// session: docs/security.md).
bool federation_serves_in_modern(std::string_view method) {
    static constexpr std::string_view served[] = {"server/discover",
                                                  "tools/list",
                                                  "tools/call",
                                                  "prompts/list",
                                                  "prompts/get",
                                                  "resources/list",
                                                  "resources/templates/list",
                                                  "resources/read",
                                                  "completion/complete",
                                                  "subscriptions/listen",
                                                  "tasks/get",
                                                  "tasks/cancel",
                                                  "tasks/update"};
    for (auto m : served)
        if (m == method)
            return true;
    return false;
}

class envelope final : public entry_step {
public:
    step run(request_context& ctx, arrival& a) override {
        const auto& msg = *a.msg;
        protocol::modern_headers headers{header_value(a.req, "MCP-Protocol-Version"),
                                         header_value(a.req, "Mcp-Method"),
                                         header_value(a.req, "Mcp-Name")};
        if (auto bad = protocol::check_modern_request(msg.method, msg.params(), headers)) {
            if (bad->error == gateway_error::unsupported_version_modern)
                // The revisions a stateless request may use, as server/discover lists them;
                // the message says earlier ones are negotiated by initialize.
                bad->data["supported"] = json::array{protocol::modern_protocol_version};
            return refused(ctx, bad->error, std::move(bad->message), std::move(bad->data));
        }
        if (removed_in_modern(msg.method))
            return refused(
                ctx, gateway_error::unknown_method_modern,
                protocol::gateway_error_text(gateway_error::unknown_method_modern,
                                             {msg.method, protocol::modern_protocol_version}));
        if (msg.kind == protocol::message_kind::request &&
            !federation_serves_in_modern(msg.method) && !ctx.view->snap->codec.passthrough())
            return refused(
                ctx, gateway_error::unknown_method_modern,
                protocol::gateway_error_text(gateway_error::unknown_method_modern,
                                             {msg.method, protocol::modern_protocol_version}));
        if (auto needed = protocol::missing_capabilities(msg.method, msg.params()))
            return refused(ctx, gateway_error::missing_capability_modern,
                           protocol::gateway_error_text(
                               gateway_error::missing_capability_modern,
                               {msg.method, "the tasks extension (" +
                                                std::string(protocol::tasks_extension) + ")"}),
                           json::object{{"requiredCapabilities", std::move(*needed)}});
        return verdict::proceed;
    }

private:
    static verdict refused(request_context& ctx, gateway_error e, std::string text,
                           json::object data = {}) {
        // Answered in the client's revision (its codes), though not yet marked as modern.
        refuse(ctx,
               error_answer{
                   e, std::move(text), nullptr, {}, protocol::client_era::modern, std::move(data)});
        return verdict::answered;
    }
};

} // namespace

std::unique_ptr<entry_step> make_envelope() {
    return std::make_unique<envelope>();
}

} // namespace gate::gateway::pipeline
